// Header-only module: see include/CoreHapticsEnums.h.
#include "CoreHapticsEnums.h"
