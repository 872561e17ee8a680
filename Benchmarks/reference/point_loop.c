/* The libpq floor for Benchmarks/pgstore-loop: the same statement and parameters, blocking
 * libpq, one connection. Usage: point_loop COUNT [prepared]  (connection from DATABASE_URL)
 * Build: cc -O2 -o point_loop point_loop.c $(pkg-config --cflags --libs libpq) */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 20000;
    int prepared = argc > 2 && strcmp(argv[2], "prepared") == 0;
    PGconn *conn = PQconnectdb(getenv("DATABASE_URL"));
    if (PQstatus(conn) != CONNECTION_OK) { fprintf(stderr, "%s", PQerrorMessage(conn)); return 1; }
    const char *sql = "SELECT $1::int8 AS n, $2 AS t";
    Oid types[2] = {20, 0};
    if (prepared) PQclear(PQprepare(conn, "point", sql, 2, types));
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    char number[32], text[48];
    for (int i = 0; i < count; i++) {
        snprintf(number, sizeof number, "%d", i);
        snprintf(text, sizeof text, "text %d", i);
        const char *values[2] = {number, text};
        PGresult *res = prepared ? PQexecPrepared(conn, "point", 2, values, NULL, NULL, 0)
                                 : PQexecParams(conn, sql, 2, types, values, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_TUPLES_OK) { fprintf(stderr, "%s", PQerrorMessage(conn)); return 1; }
        if (atol(PQgetvalue(res, 0, 0)) != i) return 1;
        PQclear(res);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    printf("C libpq%s: %d queries in %.3f s = %.0f q/s\n", prepared ? " prepared" : "", count, seconds, count / seconds);
    PQfinish(conn);
    return 0;
}
