/* g16 command-line tool. */
#include <stdio.h>
#include <string.h>

#include "g16.h"

static int usage(FILE *f)
{
    fprintf(f, "usage: g16 <command> [options]\n"
               "commands:\n"
               "  selftest   run the arithmetic self-checks and print a timing table\n"
               "  version    print the version\n");
    return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "version")) {
        printf("g16 %s\n", g16_version());
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
        return usage(stdout);
    fprintf(stderr, "g16: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
