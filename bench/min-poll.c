/*
 * bench/min-poll.c: the least a service can do per poll, as a reference row for bench/run.sh.
 *
 * Each of THREADS threads owns one listening socket on PORT (SO_REUSEPORT, so the kernel spreads
 * wrk's connections) and one libpq connection with the poll's select prepared. For every request
 * on a keep-alive connection it runs that select with the two fixed parameters, writes the row's
 * columns as a flat JSON object and sends one response. That is what hosted's poll does at its
 * core (read the request, one round trip to PostgreSQL, one response), with the same threads and
 * the same number of database connections, and nothing else: no routing, no authentication, no
 * poll limit, no access log, no escaping.
 *
 * This is benchmark tooling, not a server: it reads a request as whatever one recv returns and
 * looks only for the blank line that ends wrk's GET (wrk sends one small request at a time per
 * connection). It listens on 127.0.0.1 only and exits on SIGTERM or SIGINT.
 *
 * With --libmicrohttpd the sockets and HTTP are libmicrohttpd's instead, started with the flags
 * hosted starts it with (an internal pool of THREADS workers using poll(2), turbo, an inter-thread
 * channel), each worker running the same select on a connection of its own and answering the same
 * body: the least any front on the HTTP library hosted must use can do per poll.
 *
 * With --work-us N each request also spends N microseconds of CPU after its select (a calibrated
 * loop of arithmetic, so preemption does not shorten it): how far the rate falls as a front does
 * more work per poll, e.g. as much as hosted does (docs/performance.md, "The budget").
 *
 * With --pipeline N the front is libmicrohttpd's, and its workers do not wait for the database:
 * each poll is handed to one of N threads that own one libpq connection each in pipeline mode, the
 * worker suspends the connection and moves on, and the thread sends every poll queued as one batch
 * (one sync point; with SYNC_EACH=1 in the environment one per statement) and resumes each
 * connection as its row arrives. --work-us then spends a third of its work before the hand-over
 * and the rest after the resume, on the worker. This is what hosted's poll does on PostgreSQL
 * (docs/performance.md, "One connection, many statements in flight").
 *
 * With --sqlite, CONNINFO is the path of a SQLite database file and each thread (or libmicrohttpd
 * worker) opens its own connection to it, with the statement prepared once: the same fronts over the
 * embedded store, what hosted's poll does on SQLite (not with --pipeline, which is libpq's).
 *
 * SQL takes one to eight parameters ($1, $2, ...), given after it as text.
 *
 * Usage: min-poll [--libmicrohttpd | --pipeline N] [--sqlite] [--work-us N] PORT THREADS CONNINFO SQL PARAM...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libpq-fe.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <unistd.h>

enum { MAX_CONNECTIONS = 256, REQUEST_BYTES = 8192, BODY_BYTES = 16384, MAX_PARAMS = 8 };

static int port, use_sqlite, param_count;
static const char *conninfo, *sql, *params[MAX_PARAMS];

/* One thread's connection to the store: libpq with the statement prepared as "poll", or SQLite
   with it prepared once. */
struct database { PGconn *pg; sqlite3 *lite; sqlite3_stmt *statement; };
/* --work-us: iterations of `work` per request (0: none). */
static unsigned long work_iterations;
static volatile unsigned long work_sink;

/* CPU work the compiler cannot remove: a linear congruential step per iteration. */
static void work(unsigned long iterations) {
    unsigned long x = work_sink;
    for (unsigned long i = 0; i < iterations; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    work_sink = x;
}

/* Iterations of `work` per microsecond of this thread's CPU time. */
static double work_rate(void) {
    struct timespec start, end;
    unsigned long iterations = 50000000UL;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    work(iterations);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
    double micros = (double)(end.tv_sec - start.tv_sec) * 1e6 + (double)(end.tv_nsec - start.tv_nsec) / 1e3;
    return micros > 0 ? (double)iterations / micros : 0;
}

static void fail(const char *what) {
    fprintf(stderr, "min-poll: %s\n", what);
    exit(1);
}

static int listener(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    if (fd < 0) fail("socket");
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0) fail("bind");
    if (listen(fd, 1024) != 0) fail("listen");
    return fd;
}

/* Appends "name":"value" (after a comma unless first) to body at *used; -1 if it does not fit. */
static int render_column(char *body, size_t *at, int first, const char *name, const char *value, size_t value_length) {
    size_t used = *at, name_length = strlen(name);
    if (used + name_length + value_length + 8 > BODY_BYTES) return -1;
    if (!first) body[used++] = ',';
    body[used++] = '"';
    memcpy(body + used, name, name_length), used += name_length;
    memcpy(body + used, "\":\"", 3), used += 3;
    memcpy(body + used, value, value_length), used += value_length;
    body[used++] = '"';
    *at = used;
    return 0;
}

/* Appends the row's columns as {"name":"value",...}; returns the length, or -1 if too long. */
static int render(PGresult *result, char *body) {
    size_t used = 0;
    body[used++] = '{';
    for (int column = 0; column < PQnfields(result); column++) {
        if (render_column(body, &used, column == 0, PQfname(result, column), PQgetvalue(result, 0, column),
                          (size_t)PQgetlength(result, 0, column)) != 0) return -1;
    }
    body[used++] = '}';
    return (int)used;
}

/* The same for the current row of a SQLite statement (NULL as ""). */
static int render_sqlite(sqlite3_stmt *statement, char *body) {
    size_t used = 0;
    body[used++] = '{';
    for (int column = 0; column < sqlite3_column_count(statement); column++) {
        const unsigned char *value = sqlite3_column_text(statement, column);
        if (render_column(body, &used, column == 0, sqlite3_column_name(statement, column),
                          value ? (const char *)value : "", (size_t)sqlite3_column_bytes(statement, column)) != 0) return -1;
    }
    body[used++] = '}';
    return (int)used;
}
/* Runs the poll's select on database and renders its row into body (BODY_BYTES); sets *length
   and returns the HTTP status. */
static int poll_row(struct database *database, char *body, int *length) {
    int found;
    if (database->lite) {
        sqlite3_stmt *statement = database->statement;
        found = sqlite3_step(statement) == SQLITE_ROW;
        if (found) *length = render_sqlite(statement, body);
        sqlite3_reset(statement);
    } else {
        PGresult *result = PQexecPrepared(database->pg, "poll", param_count, params, NULL, NULL, 0);
        found = PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1;
        if (found) *length = render(result, body);
        PQclear(result);
    }
    int status = 200;
    if (!found) {
        status = 500;
        *length = snprintf(body, BODY_BYTES, "{\"error\":\"no row\"}");
    } else if (*length < 0) {
        status = 500;
        *length = snprintf(body, BODY_BYTES, "{\"error\":\"row too long\"}");
    }
    if (work_iterations) work(work_iterations);
    return status;
}

/* Answers one request on fd; returns 0 to keep the connection, -1 to close it. */
static int answer(int fd, struct database *database) {
    char request[REQUEST_BYTES], body[BODY_BYTES], head[256];
    ssize_t count = recv(fd, request, sizeof request - 1, 0);
    if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (count <= 0) return -1;
    request[count] = 0;
    if (!strstr(request, "\r\n\r\n")) return -1;
    int length, status = poll_row(database, body, &length);
    int head_length = snprintf(head, sizeof head,
                               "HTTP/1.1 %d OK\r\nContent-Type: application/json\r\n"
                               "Content-Length: %d\r\n\r\n", status, length);
    struct iovec parts[2] = {{head, (size_t)head_length}, {body, (size_t)length}};
    struct msghdr message = {.msg_iov = parts, .msg_iovlen = 2};
    return sendmsg(fd, &message, MSG_NOSIGNAL) == head_length + length ? 0 : -1;
}

/* A new connection with the poll's select prepared (on SQLite with its parameters bound, as
   they never change; WAL and a busy timeout as hosted opens it). */
static struct database *connect_database(void) {
    struct database *database = calloc(1, sizeof *database);
    if (!database) fail("out of memory");
    if (use_sqlite) {
        if (sqlite3_open_v2(conninfo, &database->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
            fail(sqlite3_errmsg(database->lite));
        sqlite3_busy_timeout(database->lite, 5000);
        if (sqlite3_exec(database->lite, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_prepare_v3(database->lite, sql, -1, SQLITE_PREPARE_PERSISTENT, &database->statement, NULL) != SQLITE_OK)
            fail(sqlite3_errmsg(database->lite));
        if (sqlite3_bind_parameter_count(database->statement) != param_count) fail("SQL and PARAMs do not match");
        for (int index = 0; index < param_count; index++)
            if (sqlite3_bind_text(database->statement, index + 1, params[index], -1, SQLITE_STATIC) != SQLITE_OK)
                fail(sqlite3_errmsg(database->lite));
        return database;
    }
    database->pg = PQconnectdb(conninfo);
    if (PQstatus(database->pg) != CONNECTION_OK) fail(PQerrorMessage(database->pg));
    PGresult *prepared = PQprepare(database->pg, "poll", sql, param_count, NULL);
    if (PQresultStatus(prepared) != PGRES_COMMAND_OK) fail(PQerrorMessage(database->pg));
    PQclear(prepared);
    return database;
}

static void *worker(void *unused) {
    (void)unused;
    struct database *database = connect_database();
    struct pollfd fds[MAX_CONNECTIONS + 1] = {{.fd = listener(), .events = POLLIN}};
    int open = 1;
    for (;;) {
        if (poll(fds, (nfds_t)open, -1) < 0) {
            if (errno == EINTR) continue;
            fail("poll");
        }
        for (int index = open - 1; index >= 1; index--) {
            if (!fds[index].revents) continue;
            if ((fds[index].revents & (POLLERR | POLLHUP)) || answer(fds[index].fd, database) != 0) {
                close(fds[index].fd);
                fds[index] = fds[--open];
            }
        }
        if (fds[0].revents & POLLIN) {
            int fd, one = 1;
            while (open <= MAX_CONNECTIONS && (fd = accept4(fds[0].fd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                fds[open++] = (struct pollfd){.fd = fd, .events = POLLIN};
            }
        }
    }
    return NULL;
}

/* The libmicrohttpd front: each of its worker threads opens its own database connection on its
   first request (libmicrohttpd runs a connection's callbacks on the thread that polls it). */
static __thread struct database *thread_database;

static enum MHD_Result answer_mhd(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **slot) {
    (void)cls, (void)url, (void)method, (void)version, (void)upload;
    if (*slot == NULL) {  /* the headers: answer when the (empty) body has been read */
        *slot = connection;
        return MHD_YES;
    }
    if (*upload_size != 0) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (!thread_database) thread_database = connect_database();
    char body[BODY_BYTES];
    int length, status = poll_row(thread_database, body, &length);
    struct MHD_Response *response =
        MHD_create_response_from_buffer((size_t)length, body, MHD_RESPMEM_MUST_COPY);
    if (!response) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, (unsigned int)status, response);
    MHD_destroy_response(response);
    return queued;
}


/* --pipeline N: the libmicrohttpd front hands each poll to one of N executor threads, each owning
   one libpq connection in pipeline mode; a worker suspends the connection and moves on, the
   executor sends whatever polls are queued as one batch (one Sync) and resumes each connection
   as its row arrives. */
enum { RING = 1024 };
struct item { struct MHD_Connection *connection; int state, status, length; char body[4096]; };
struct executor {
    pthread_mutex_t lock;
    struct item *queued[RING]; int queued_count; int sleeping; int wake_fd;
    PGconn *database;
    struct item *ring[RING]; int head, tail; /* in flight; NULL = a Sync */
};
static int sync_each;
static struct executor *executors; static int executor_count;
static __thread int thread_executor = -1; static int next_executor;

static void render_item(PGresult *result, struct item *item) {
    char body[BODY_BYTES];
    if (PQresultStatus(result) != PGRES_TUPLES_OK || PQntuples(result) != 1) {
        item->status = 500; item->length = snprintf(item->body, sizeof item->body, "{\"error\":\"no row\"}");
        return;
    }
    int length = render(result, body);
    if (length < 0 || length > (int)sizeof item->body) { item->status = 500; item->length = 0; return; }
    memcpy(item->body, body, (size_t)length); item->length = length; item->status = 200;
}

static void *execute(void *argument) {
    struct executor *e = argument;
    int fd = PQsocket(e->database);
    struct item *batch[RING];
    int got_row = 0;
    for (;;) {
        pthread_mutex_lock(&e->lock);
        int count = e->queued_count;
        memcpy(batch, e->queued, (size_t)count * sizeof batch[0]);
        e->queued_count = 0;
        int idle = count == 0 && e->head == e->tail;
        e->sleeping = idle;
        pthread_mutex_unlock(&e->lock);
        if (count > 0) {
            for (int i = 0; i < count; i++) {
                if (!PQsendQueryPrepared(e->database, "poll", param_count, params, NULL, NULL, 0)) fail(PQerrorMessage(e->database));
                e->ring[e->tail++ % RING] = batch[i];
                if (sync_each) { if (!PQpipelineSync(e->database)) fail("sync"); e->ring[e->tail++ % RING] = NULL; }
            }
            if (!sync_each) { if (!PQpipelineSync(e->database)) fail("sync");
            e->ring[e->tail++ % RING] = NULL; }
            int flushed;
            while ((flushed = PQflush(e->database)) == 1) {
                struct pollfd out = {.fd = fd, .events = POLLOUT | POLLIN};
                poll(&out, 1, -1);
                if (out.revents & POLLIN) PQconsumeInput(e->database);
            }
            if (flushed < 0) fail("flush");
        }
        struct pollfd fds[2] = {{.fd = e->wake_fd, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
        if (poll(fds, e->head == e->tail ? 1 : 2, -1) < 0) { if (errno == EINTR) continue; fail("poll"); }
        if (fds[0].revents & POLLIN) { unsigned long long n; if (read(e->wake_fd, &n, sizeof n) < 0) {} }
        if (e->head == e->tail || !(fds[1].revents & POLLIN)) continue;
        if (!PQconsumeInput(e->database)) fail(PQerrorMessage(e->database));
        while (e->head != e->tail && !PQisBusy(e->database)) {
            struct item *item = e->ring[e->head % RING];
            PGresult *result = PQgetResult(e->database);
            if (item == NULL) {  /* the batch's Sync */
                if (result && PQresultStatus(result) != PGRES_PIPELINE_SYNC) fail("expected a sync");
                PQclear(result); e->head++; continue;
            }
            if (result) { if (!got_row) render_item(result, item); got_row = 1; PQclear(result); continue; }
            got_row = 0; e->head++;
            item->state = 2;
            MHD_resume_connection(item->connection);
        }
    }
    return NULL;
}

static void enqueue(struct item *item) {
    if (thread_executor < 0) thread_executor = __atomic_fetch_add(&next_executor, 1, __ATOMIC_RELAXED) % executor_count;
    struct executor *e = &executors[thread_executor];
    pthread_mutex_lock(&e->lock);
    if (e->queued_count >= RING) fail("queue full");
    e->queued[e->queued_count++] = item;
    int wake = e->sleeping; e->sleeping = 0;
    pthread_mutex_unlock(&e->lock);
    if (wake) { unsigned long long one = 1; if (write(e->wake_fd, &one, sizeof one) < 0) fail("wake"); }
}

static enum MHD_Result answer_pipelined(void *cls, struct MHD_Connection *connection, const char *url,
                                        const char *method, const char *version, const char *upload,
                                        size_t *upload_size, void **slot) {
    (void)cls, (void)url, (void)method, (void)version, (void)upload;
    if (*slot == NULL) {
        struct item *item = malloc(sizeof *item);
        if (!item) return MHD_NO;
        item->connection = connection; item->state = 0;
        *slot = item;
        return MHD_YES;
    }
    struct item *item = *slot;
    if (*upload_size != 0) { *upload_size = 0; return MHD_YES; }
    if (item->state == 0) {
        item->state = 1;
        if (work_iterations) work(work_iterations / 3);
        MHD_suspend_connection(connection);
        enqueue(item);
        return MHD_YES;
    }
    if (item->state != 2) return MHD_YES;
    if (work_iterations) work(work_iterations - work_iterations / 3);
    struct MHD_Response *response =
        MHD_create_response_from_buffer((size_t)item->length, item->body, MHD_RESPMEM_MUST_COPY);
    if (!response) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, (unsigned int)item->status, response);
    MHD_destroy_response(response);
    return queued;
}

static void completed(void *cls, struct MHD_Connection *connection, void **slot, enum MHD_RequestTerminationCode code) {
    (void)cls, (void)connection, (void)code;
    free(*slot); *slot = NULL;
}

static void serve_pipelined(int threads, int count) {
    executor_count = count; sync_each = getenv("SYNC_EACH") != NULL;
    executors = calloc((size_t)count, sizeof *executors);
    for (int i = 0; i < count; i++) {
        struct executor *e = &executors[i];
        pthread_mutex_init(&e->lock, NULL);
        e->wake_fd = eventfd(0, EFD_CLOEXEC);
        e->database = connect_database()->pg;
        if (!PQenterPipelineMode(e->database) || PQsetnonblocking(e->database, 1) != 0) fail("pipeline mode");
        pthread_t thread;
        if (pthread_create(&thread, NULL, execute, e) != 0) fail("pthread_create");
    }
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC
                         | MHD_USE_TURBO | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, answer_pipelined, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_END);
    if (!daemon) fail("MHD_start_daemon");
    pause();
}

static void serve_mhd(int threads) {
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC
                         | MHD_USE_TURBO | MHD_USE_ERROR_LOG;
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, answer_mhd, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
        MHD_OPTION_END);
    if (!daemon) fail("MHD_start_daemon");
    pause();
}

int main(int argc, char **argv) {
    int use_mhd = 0, pipeline = 0;
    long work_us = 0;
    while (argc > 1 && strncmp(argv[1], "--", 2) == 0) {
        if (strcmp(argv[1], "--libmicrohttpd") == 0) {
            use_mhd = 1, argc -= 1, argv += 1;
        } else if (strcmp(argv[1], "--pipeline") == 0 && argc > 2) {
            pipeline = atoi(argv[2]), argc -= 2, argv += 2;
            if (pipeline < 1 || pipeline > 16) fail("bad --pipeline");
        } else if (strcmp(argv[1], "--sqlite") == 0) {
            use_sqlite = 1, argc -= 1, argv += 1;
        } else if (strcmp(argv[1], "--work-us") == 0 && argc > 2) {
            char *end;
            work_us = strtol(argv[2], &end, 10);
            if (*end || work_us < 0 || work_us > 100000) fail("bad --work-us");
            argc -= 2, argv += 2;
        } else {
            break;
        }
    }
    if (argc < 6 || argc > 5 + MAX_PARAMS || (use_sqlite && pipeline)) {
        fprintf(stderr, "usage: min-poll [--libmicrohttpd | --pipeline N] [--sqlite] [--work-us N] PORT THREADS CONNINFO SQL PARAM...\n"
                        "       (1 to %d PARAMs; --sqlite: CONNINFO is a SQLite file, not with --pipeline)\n", MAX_PARAMS);
        return 2;
    }
    if (work_us > 0) {
        double rate = work_rate();
        if (rate <= 0) fail("cannot calibrate --work-us");
        work_iterations = (unsigned long)(rate * (double)work_us);
        fprintf(stderr, "min-poll: %ld us of work per request = %lu iterations\n", work_us, work_iterations);
    }
    port = atoi(argv[1]);
    int threads = atoi(argv[2]);
    if (port <= 0 || port > 65535 || threads <= 0 || threads > 64) fail("bad PORT or THREADS");
    conninfo = argv[3], sql = argv[4], param_count = argc - 5;
    for (int index = 0; index < param_count; index++) params[index] = argv[5 + index];
    signal(SIGPIPE, SIG_IGN);
    if (pipeline) serve_pipelined(threads, pipeline);
    if (use_mhd) serve_mhd(threads);
    for (int index = 0; index < threads; index++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, worker, NULL) != 0) fail("pthread_create");
        pthread_detach(thread);
    }
    pause();
    return 0;
}
