/* pbrain_main.c - pbrain-gomokud: the Gomocup protocol brain on stdin/stdout.
 *
 * A thin loop: read a line (ended by LF, CR or CR LF), hand it to the
 * protocol state machine in api/pbrain.c, which searches on its own worker
 * thread and writes its replies through write_line. Exits after END, or at
 * the end of the input once the last search has answered. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/pbrain.h"
#include "server/book.h"

/* One reply line, flushed at once (the manager reads a pipe). */
static void write_line(void *ctx, const char *line)
{
    FILE *f = ctx;
    fputs(line, f);
    fputc('\n', f);
    fflush(f);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v"))) {
        printf("pbrain-gomokud %s\n", GOMOKUD_VERSION);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr,
                "usage: pbrain-gomokud\n"
                "Speaks the Gomocup (Piskvork) brain protocol on stdin/stdout; start it from a\n"
                "match manager or a GUI such as Piskvork or Yixin-Board.\n");
        return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? 2 : 0;
    }
    signal(SIGPIPE, SIG_IGN); /* a vanished manager shows up as EOF, not a crash */
    if (!engine_init()) {
        fprintf(stderr, "pbrain-gomokud: out of memory building the engine tables\n");
        return 1;
    }
    /* The opening book: the one built in, unless GOMOKUD_BOOK names a book
     * file or is empty (no book). INFO book 0 turns it off for a session. */
    const char *spec = getenv("GOMOKUD_BOOK");
    EngineBook *book = NULL;
    char err[1400];
    if (!book_load(spec ? spec : BOOK_BUILTIN, &book, err, sizeof err)) {
        fprintf(stderr, "pbrain-gomokud: GOMOKUD_BOOK: %s\n", err);
        return 1;
    }
    PbrainOptions opt = {.threaded = true, .book = book};
    Pbrain *pb = pbrain_new(&opt, write_line, stdout);
    if (!pb) {
        fprintf(stderr, "pbrain-gomokud: cannot start (out of memory or threads)\n");
        return 1;
    }

    /* Room for one character more than the brain accepts, so that an
     * overlong line reaches it as overlong and is answered with ERROR. */
    char line[PBRAIN_LINE_MAX + 2];
    size_t n = 0;
    int c;
    PbrainStatus st = PBRAIN_CONTINUE;
    while (st == PBRAIN_CONTINUE && (c = getchar()) != EOF) {
        if (c == '\n' || c == '\r') {
            line[n] = 0;
            n = 0;
            st = pbrain_feed(pb, line);
        } else if (n < sizeof line - 1) {
            line[n++] = c ? (char)c : '\001'; /* a NUL byte must not cut the line short */
        }
    }
    if (st == PBRAIN_CONTINUE) {
        if (n) {
            line[n] = 0;
            st = pbrain_feed(pb, line);
        }
        if (st == PBRAIN_CONTINUE) pbrain_wait(pb); /* input ended: let the last search answer */
    }
    pbrain_free(pb);
    engine_book_free(book);
    return 0;
}
