#ifndef CALSA_SHIM_H
#define CALSA_SHIM_H

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// ALSA prints its own diagnostics to stderr through a variadic error handler
// (snd_lib_error_handler_t). Swift cannot define or call C variadic functions,
// so the handler lives here. It does not print: it keeps the last message of the
// calling thread, and HapticsALSA folds that text into the AudioOutputError it
// throws, so the user sees one clear report instead of ALSA's raw stderr lines.

/// Size of the per-thread buffer holding ALSA's last diagnostic message.
#define CALSA_MESSAGE_CAPACITY 512

/// The last message ALSA reported on this thread; empty after `calsa_clear_last_message`.
static inline char *calsa_last_message_buffer(void) {
    static _Thread_local char message[CALSA_MESSAGE_CAPACITY];
    return message;
}

static void calsa_capture_message(const char *file, int line, const char *function, int err,
                                  const char *fmt, ...) {
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    va_list args;
    va_start(args, fmt);
    vsnprintf(calsa_last_message_buffer(), CALSA_MESSAGE_CAPACITY, fmt, args);
    va_end(args);
}

/// Installs the capturing handler in place of ALSA's default stderr printer. Process-wide.
static inline int calsa_install_error_capture(void) {
    return snd_lib_error_set_handler(calsa_capture_message);
}

/// ALSA's last diagnostic on this thread ("" if none since the last clear).
static inline const char *calsa_last_message(void) {
    return calsa_last_message_buffer();
}

/// Forgets ALSA's last diagnostic on this thread.
static inline void calsa_clear_last_message(void) {
    calsa_last_message_buffer()[0] = '\0';
}

#endif
