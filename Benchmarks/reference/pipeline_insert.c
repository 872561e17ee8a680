/* The libpq floor for `pgstore-batch pipeline`: COUNT inserts of the same statement in one
 * pipeline (non-blocking, flushing and reading as the socket allows), one sync.
 * Usage: pipeline_insert COUNT  (connection from DATABASE_URL)
 * Build: cc -O2 -o pipeline_insert pipeline_insert.c $(pkg-config --cflags --libs libpq) */
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void must(PGconn *conn, PGresult *res) {
    if (PQresultStatus(res) != PGRES_COMMAND_OK) { fprintf(stderr, "%s", PQerrorMessage(conn)); exit(1); }
    PQclear(res);
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 20000;
    PGconn *conn = PQconnectdb(getenv("DATABASE_URL"));
    if (PQstatus(conn) != CONNECTION_OK) { fprintf(stderr, "%s", PQerrorMessage(conn)); return 1; }
    PQclear(PQexec(conn, "SET client_min_messages = warning"));
    must(conn, PQexec(conn, "DROP TABLE IF EXISTS bench_items"));
    must(conn, PQexec(conn, "CREATE TABLE bench_items (id int8 PRIMARY KEY, title text NOT NULL, note text)"));
    const char *sql = "INSERT INTO bench_items VALUES ($1, $2, $3)";
    Oid types[3] = {20, 0, 0};
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    PQsetnonblocking(conn, 1);
    PQenterPipelineMode(conn);
    char number[32], title[48];
    int received = 0, synced = 0;
    for (int i = 0; i <= count; i++) {
        if (i < count) {
            snprintf(number, sizeof number, "%d", i);
            snprintf(title, sizeof title, "task %d", i);
            const char *values[3] = {number, title, NULL};
            PQsendQueryParams(conn, sql, 3, types, values, NULL, NULL, 0);
        } else {
            PQpipelineSync(conn);
        }
        while (PQflush(conn) == 1) {
            struct pollfd fd = {PQsocket(conn), POLLIN | POLLOUT, 0};
            poll(&fd, 1, -1);
            PQconsumeInput(conn);
        }
    }
    while (!synced) {
        while (!PQisBusy(conn)) {
            PGresult *res = PQgetResult(conn);
            if (!res) continue;
            ExecStatusType status = PQresultStatus(res);
            if (status == PGRES_PIPELINE_SYNC) synced = 1;
            else if (status != PGRES_COMMAND_OK) { fprintf(stderr, "%s", PQerrorMessage(conn)); return 1; }
            else received++;
            PQclear(res);
            if (synced) break;
        }
        if (synced) break;
        struct pollfd fd = {PQsocket(conn), POLLIN, 0};
        poll(&fd, 1, -1);
        PQconsumeInput(conn);
    }
    PQexitPipelineMode(conn);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    printf("C libpq pipeline: %d rows in %.3f s = %.0f rows/s\n", received, seconds, received / seconds);
    PQsetnonblocking(conn, 0);
    must(conn, PQexec(conn, "DROP TABLE bench_items"));
    PQfinish(conn);
    return 0;
}
