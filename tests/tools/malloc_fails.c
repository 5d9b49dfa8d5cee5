/*
 * tests/tools/malloc_fails.c - preloaded (LD_PRELOAD) into cesync by tests
 * of what a command does when memory runs out (tools_test_bench's
 * test_dry_run_out_of_memory): CES_TEST_MALLOC_FAIL_AT=N makes the Nth
 * malloc, calloc or realloc since the program started return NULL (ENOMEM),
 * that one alone; CES_TEST_MALLOC_COUNT=FILE writes how many there were at
 * the exit, to choose N.  The program's children (Graphviz) run without it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

static unsigned long calls, fail_at;

__attribute__((constructor)) static void start(void)
{
    const char *s = getenv("CES_TEST_MALLOC_FAIL_AT");

    fail_at = s != NULL ? strtoul(s, NULL, 10) : 0;
    unsetenv("LD_PRELOAD");
}

__attribute__((destructor)) static void end(void)
{
    const char *path = getenv("CES_TEST_MALLOC_COUNT");
    FILE *f = path != NULL ? fopen(path, "w") : NULL;

    if (f != NULL) {
        fprintf(f, "%lu\n", calls);
        fclose(f);
    }
}

static int fails(void)
{
    if (++calls != fail_at)
        return 0;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t size)
{
    return fails() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    return fails() ? NULL : __libc_realloc(p, size);
}
