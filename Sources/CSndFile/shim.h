#ifndef CSNDFILE_SHIM_H
#define CSNDFILE_SHIM_H

// libsndfile (Debian 12: 1.2.0, built with FLAC, Ogg Vorbis, Opus and MPEG via mpg123/LAME):
// HapticsAudioAnalysis decodes every compressed format through it (docs/audio-to-haptics.md).
#include <sndfile.h>

#endif
