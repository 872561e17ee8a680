#ifndef C_STOP_SIGNALS_H
#define C_STOP_SIGNALS_H

// Installs handlers that only record the first of SIGINT, SIGTERM and SIGHUP: a program's very
// first act (CStopSignalsAtStart), until CommandRunner.main puts its own in place.
void taskbase_catch_stop_signals_early(void);

// The signal those handlers recorded, or 0.
int taskbase_early_stop_signal(void);

#endif
