// The handlers a program has from its first moment (CStopSignalsAtStart) until
// CommandRunner.main's InterruptWatcher installs its own and takes a recorded signal over: they
// only record the first signal, the one thing a handler this early may do.
#include "CStopSignals.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

static volatile sig_atomic_t early_stop_signal = 0;

static void record_stop_signal(int number) {
    if (early_stop_signal == 0) early_stop_signal = number;
}

void taskbase_catch_stop_signals_early(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = record_stop_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    const int numbers[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t index = 0; index < sizeof numbers / sizeof numbers[0]; index++) sigaction(numbers[index], &action, NULL);
}

int taskbase_early_stop_signal(void) {
    return early_stop_signal;
}
