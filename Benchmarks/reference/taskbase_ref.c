/*
 * taskbase_ref: the C reference of scripts/bench — the same statements TaskStorePG sends
 * (read from a dump written by `taskbase-bench dump`), sent the fastest way libpq allows:
 * prepared once, then each call's statements pipelined in one round trip.
 *
 *   taskbase_ref CONNINFO STATEMENTS_FILE w1 COUNT            one call per iteration, number varies 1..1000
 *   taskbase_ref CONNINFO STATEMENTS_FILE w2 COUNT            one call per iteration
 *   taskbase_ref CONNINFO STATEMENTS_FILE w3 COUNT            COUNT calls in one pipeline (the batch path of a C client)
 *
 * Prints one JSON line: {"workload":..., "operations":..., "seconds":...}.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_STATEMENTS 8
#define MAX_PARAMS 64
#define NUMBER_MARKER "777"

typedef struct {
    char *sql;
    int nparams;
    char *values[MAX_PARAMS];
    int varying[MAX_PARAMS]; /* 1 where the value is the task number */
    char name[16];
} Statement;

static Statement statements[MAX_STATEMENTS];
static int statement_count;

static void die(const char *what, PGconn *conn) {
    fprintf(stderr, "taskbase_ref: %s: %s\n", what, conn ? PQerrorMessage(conn) : "");
    exit(1);
}

static char *read_block(FILE *f, const char *tag) {
    char line[64];
    long length;
    if (!fgets(line, sizeof line, f)) die("truncated statements file", NULL);
    if (strcmp(line, "NULL\n") == 0) return NULL;
    char expected[16];
    snprintf(expected, sizeof expected, "%s %%ld", tag);
    if (sscanf(line, expected, &length) != 1) die("malformed statements file", NULL);
    char *buffer = malloc(length + 1);
    if (fread(buffer, 1, length, f) != (size_t)length) die("truncated block", NULL);
    buffer[length] = 0;
    fgetc(f); /* the newline after the block */
    return buffer;
}

static void load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open the statements file", NULL);
    if (fscanf(f, "STATEMENTS %d\n", &statement_count) != 1 || statement_count > MAX_STATEMENTS) die("bad header", NULL);
    for (int s = 0; s < statement_count; s++) {
        Statement *st = &statements[s];
        st->sql = read_block(f, "SQL");
        if (fscanf(f, "PARAMS %d\n", &st->nparams) != 1 || st->nparams > MAX_PARAMS) die("bad PARAMS line", NULL);
        for (int p = 0; p < st->nparams; p++) {
            st->values[p] = read_block(f, "PARAM");
            st->varying[p] = st->values[p] && strcmp(st->values[p], NUMBER_MARKER) == 0;
        }
        snprintf(st->name, sizeof st->name, "ref_%d", s);
    }
    fclose(f);
}

static void prepare_all(PGconn *conn) {
    for (int s = 0; s < statement_count; s++) {
        PGresult *r = PQprepare(conn, statements[s].name, statements[s].sql, statements[s].nparams, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) die("prepare", conn);
        PQclear(r);
    }
}

/* Queues one call's statements; the varying parameter gets `number`. */
static void send_call(PGconn *conn, const char *number) {
    for (int s = 0; s < statement_count; s++) {
        const char *values[MAX_PARAMS];
        for (int p = 0; p < statements[s].nparams; p++) values[p] = statements[s].varying[p] ? number : statements[s].values[p];
        if (!PQsendQueryPrepared(conn, statements[s].name, statements[s].nparams, values, NULL, NULL, 0)) die("send", conn);
    }
}

/* Reads results up to and including the next sync; fails on any error. */
static void read_until_sync(PGconn *conn) {
    for (;;) {
        PGresult *r = PQgetResult(conn);
        if (!r) continue; /* end of one statement's results */
        ExecStatusType status = PQresultStatus(r);
        if (status == PGRES_PIPELINE_SYNC) { PQclear(r); return; }
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
            fprintf(stderr, "taskbase_ref: %s", PQresultErrorMessage(r));
            exit(1);
        }
        PQclear(r);
    }
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: taskbase_ref CONNINFO STATEMENTS_FILE w1|w2|w3 COUNT\n"); return 2; }
    load(argv[2]);
    const char *workload = argv[3];
    int count = atoi(argv[4]);
    PGconn *conn = PQconnectdb(argv[1]);
    if (PQstatus(conn) != CONNECTION_OK) die("connect", conn);
    prepare_all(conn);
    if (!PQenterPipelineMode(conn)) die("pipeline mode", conn);
    char number[32];
    /* Warm-up, as the Swift side does. */
    for (int i = 0; i < 200 && strcmp(workload, "w1") == 0; i++) {
        snprintf(number, sizeof number, "%d", i % 1000 + 1);
        send_call(conn, number);
        PQpipelineSync(conn);
        read_until_sync(conn);
    }
    double started = now_seconds();
    if (strcmp(workload, "w3") == 0) {
        for (int i = 0; i < count; i++) {
            snprintf(number, sizeof number, "%d", i % 1000 + 1);
            send_call(conn, number);
            /* Read as we go so neither side's buffers fill up. */
            if (i % 100 == 99) PQsendFlushRequest(conn);
        }
        PQpipelineSync(conn);
        for (int i = 0; i < count * statement_count; i++) {
            PGresult *r = PQgetResult(conn);
            if (!r) { i--; continue; }
            ExecStatusType status = PQresultStatus(r);
            if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) die("w3 statement", conn);
            PQclear(r);
        }
        read_until_sync(conn);
    } else {
        for (int i = 0; i < count; i++) {
            snprintf(number, sizeof number, "%d", i % 1000 + 1);
            send_call(conn, number);
            PQpipelineSync(conn);
            read_until_sync(conn);
        }
    }
    double elapsed = now_seconds() - started;
    printf("{\"workload\":\"%s\",\"operations\":%d,\"seconds\":%.6f,\"ops_per_second\":%.1f}\n", workload, count, elapsed, count / elapsed);
    PQfinish(conn);
    return 0;
}
