/*
 * tests/fuzz/replay.c - runs the fuzz target over files: each argument is a
 * file, or a directory whose regular files (not its subdirectories) are
 * taken in name order.  The ctest fuzz_replay runs it over the fixtures,
 * the calibrated models and the inputs that once broke a promise
 * (tests/fuzz/regress), so every build checks them; after a fuzzing run,
 * give it the corpus to check those inputs without libFuzzer.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static long nfiles;

static void out_of_memory(const char *what)
{
    fprintf(stderr, "fuzz_replay: %s: out of memory\n", what);
    exit(1);
}

static int one_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (f == NULL) {
        perror(path);
        return 1;
    }
    do {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap = cap * 2 + 4096);

            if (nb == NULL)
                out_of_memory(path);
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    if (ferror(f)) {
        perror(path);
        free(buf);
        fclose(f);
        return 1;
    }
    fclose(f);
    ces_fuzz_one(buf, len);
    free(buf);
    nfiles++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int one_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    if (d == NULL) {
        perror(dir);
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t need = strlen(dir) + strlen(e->d_name) + 2;
        struct stat sb;
        char *path;

        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap * 2 + 16) * sizeof(*names));

            if (nn == NULL)
                out_of_memory(dir);
            names = nn;
        }
        path = malloc(need);
        if (path == NULL)
            out_of_memory(dir);
        snprintf(path, need, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            names[n++] = path;
        else
            free(path);
    }
    closedir(d);
    if (n > 0) /* names is NULL for a directory of no files: qsort's UB */
        qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        rc |= one_file(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;

    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: fuzz_replay FILE|DIR...\n"
                "Runs the fuzz target over each file, and over each directory's files\n"
                "in name order; exits 1 if one cannot be read, aborts on a broken promise.\n");
        return argc < 2 ? 2 : 0;
    }
    for (int i = 1; i < argc; i++) {
        struct stat sb;

        if (stat(argv[i], &sb) != 0) {
            perror(argv[i]);
            rc = 1;
        } else {
            rc |= S_ISDIR(sb.st_mode) ? one_dir(argv[i]) : one_file(argv[i]);
        }
    }
    if (rc == 0)
        printf("fuzz_replay: %ld input%s, every promise kept\n", nfiles, nfiles == 1 ? "" : "s");
    return rc;
}
