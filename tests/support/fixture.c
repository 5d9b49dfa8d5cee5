/*
 * tests/support/fixture.c - reading fixture files and their directives.
 */
#include "ces_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *ces_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (f == NULL)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len != NULL)
        *len = (size_t)n;
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t ces_test_list(const char *subdir, const char *suffix, char ***out)
{
    char dir[1024];
    DIR *d;
    struct dirent *e;
    char **paths = NULL;
    size_t n = 0;

    snprintf(dir, sizeof(dir), "%s/%s", CES_FIXTURES, subdir);
    d = opendir(dir);
    if (d == NULL)
        fail_msg("cannot open fixture directory %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name), s = strlen(suffix);

        if (l <= s || strcmp(e->d_name + l - s, suffix) != 0)
            continue;
        paths = realloc(paths, (n + 1) * sizeof(*paths));
        assert_non_null(paths);
        paths[n] = malloc(strlen(dir) + l + 2);
        assert_non_null(paths[n]);
        sprintf(paths[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(paths, n, sizeof(*paths), cmp_str);
    *out = paths;
    return n;
}

void ces_test_list_free(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

char *ces_test_directive(const char *text, const char *key)
{
    size_t kl = strlen(key);

    for (const char *p = text; p != NULL && *p != '\0';) {
        const char *eol = strchr(p, '\n');
        size_t ll = eol != NULL ? (size_t)(eol - p) : strlen(p);

        if (ll >= kl && strncmp(p, key, kl) == 0) {
            char *v = malloc(ll - kl + 1);

            assert_non_null(v);
            memcpy(v, p + kl, ll - kl);
            v[ll - kl] = '\0';
            return v;
        }
        p = eol != NULL ? eol + 1 : NULL;
    }
    return NULL;
}

/* buf, the text of *used bytes, with chunk[0, n) appended and a NUL after
 * it (*used grown), or fails the test. */
static char *append_chunk(char *buf, size_t *used, const char *chunk, size_t n)
{
    buf = realloc(buf, *used + n + 1);
    assert_non_null(buf);
    memcpy(buf + *used, chunk, n);
    *used += n;
    buf[*used] = '\0';
    return buf;
}

char *ces_test_read_stream(FILE *f, size_t *len)
{
    char chunk[4096], *buf = calloc(1, 1);
    size_t used = 0, n;

    assert_non_null(buf);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        buf = append_chunk(buf, &used, chunk, n);
    if (len != NULL)
        *len = used;
    return buf;
}

char *ces_test_read_fd(int fd, size_t *len)
{
    char chunk[4096], *buf = calloc(1, 1);
    size_t used = 0;

    assert_non_null(buf);
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        buf = append_chunk(buf, &used, chunk, (size_t)n);
    }
    if (len != NULL)
        *len = used;
    return buf;
}

int ces_test_tool(const char *dir, const char *args, char **out)
{
    return ces_test_tool_env(dir, "", args, out);
}

int ces_test_tool_env(const char *dir, const char *env, const char *args, char **out)
{
    char cmd[4096], *buf;
    FILE *f;
    int st;

    /* standard input is /dev/null unless args redirect it: a command that
     * names no schedule must not see whatever the test itself was given */
    snprintf(cmd, sizeof(cmd), "cd '%s' && %s '%s' </dev/null %s 2>&1",
             dir != NULL ? dir : CES_FIXTURES, env, CES_TOOL, args);
    f = popen(cmd, "r");
    assert_non_null(f);
    buf = ces_test_read_stream(f, NULL);
    st = pclose(f);
    assert_true(WIFEXITED(st));
    *out = buf;
    return WEXITSTATUS(st);
}

void ces_test_tool_says(const char *args, int rc, const char *want)
{
    char *out = NULL;

    if (ces_test_tool(NULL, args, &out) != rc)
        fail_msg("'cesync %s' did not exit %d:\n%s", args, rc, out);
    assert_string_equal(out, want);
    free(out);
}

size_t ces_test_count(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);

    /* by strchr and strncmp, which read no further than they must: strstr
     * under AddressSanitizer takes the length of the rest of `hay` at each
     * call, so counting 30,000 edges of a picture of a few MiB took a
     * minute */
    for (hay = len > 0 ? strchr(hay, needle[0]) : NULL; hay != NULL;
         hay = strchr(hay + 1, needle[0]))
        n += strncmp(hay, needle, len) == 0;
    return n;
}

size_t ces_test_repeat(char *buf, size_t size, size_t at, const char *s, unsigned n)
{
    for (unsigned i = 0; i < n && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s", s);
    return at;
}

/* `s` with every run of spaces and newlines made one space, in place. */
static void squeeze_blanks(char *s)
{
    char *to = s;

    for (const char *from = s; *from != '\0'; from++)
        if (*from != ' ' && *from != '\n')
            *to++ = *from;
        else if (to == s || to[-1] != ' ')
            *to++ = ' ';
    *to = '\0';
}

void ces_test_cli_doc_says(const char *section, const char *words)
{
    char *doc = ces_test_read_file(CES_FIXTURES "/../../docs/CLI.md", NULL);
    char *want = strdup(words), *text;
    const char *start = strstr(doc, section), *next;
    size_t len;

    assert_non_null(want);
    /* the heading itself: a line of its own */
    while (start != NULL &&
           (start[strlen(section)] != '\n' || (start != doc && start[-1] != '\n')))
        start = strstr(start + 1, section);
    if (start == NULL)
        fail_msg("docs/CLI.md has no section '%s'", section);
    next = strstr(start + strlen(section), "\n## ");
    len = next != NULL ? (size_t)(next - start) : strlen(start);
    text = malloc(len + 1);
    assert_non_null(text);
    memcpy(text, start, len);
    text[len] = '\0';
    squeeze_blanks(text);
    squeeze_blanks(want);
    if (strstr(text, want) == NULL)
        fail_msg("docs/CLI.md's '%s' does not say:\n%s", section, want);
    free(text);
    free(want);
    free(doc);
}

void ces_test_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

const char *ces_test_tmp_base(void)
{
    const char *dir = getenv("TMPDIR");

    return dir != NULL && *dir != '\0' ? dir : "/tmp";
}

char *ces_test_env_save(const char *name)
{
    const char *v = getenv(name);
    char *copy = v != NULL ? strdup(v) : NULL;

    assert_true(v == NULL || copy != NULL);
    return copy;
}

void ces_test_env_restore(const char *name, char *saved)
{
    if (saved != NULL)
        assert_int_equal(setenv(name, saved, 1), 0);
    else
        assert_int_equal(unsetenv(name), 0);
    free(saved);
}

/* The directories ces_test_tmpdir made, and the process that made them:
 * removed, with what they still hold, when that process exits. */
static char **made;
static size_t nmade;
static pid_t made_by;

void ces_test_remove_tree(const char *path)
{
    struct stat sb;
    DIR *d;
    struct dirent *e;

    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        chmod(path, S_IRWXU);
        d = opendir(path);
        while (d != NULL && (e = readdir(d)) != NULL) {
            char sub[4096];

            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                (size_t)snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) < sizeof(sub))
                ces_test_remove_tree(sub);
        }
        if (d != NULL)
            closedir(d);
    }
    remove(path);
}

/* At exit: what a test left in its directories (a failed assertion ends a
 * test before its own clean-up), in the process that made them only (a
 * child forked by a test exits through here too). */
static void remove_made(void)
{
    for (size_t i = 0; i < nmade; i++) {
        if (getpid() == made_by)
            ces_test_remove_tree(made[i]);
        free(made[i]);
    }
    free(made);
    made = NULL;
    nmade = 0;
}

/* "TMPDIR/ces_test_XXXXXX" into buf (size at least CES_TEST_TMPDIR_SIZE,
 * room for the names the tests put in that directory in buffers of fixed
 * size): 0, or -1 with errno ENAMETOOLONG for a longer TMPDIR. */
static int tmp_template(char *buf, size_t size)
{
    const char *base = ces_test_tmp_base();

    if (strlen(base) > CES_TEST_TMP_BASE_MAX || size < CES_TEST_TMPDIR_SIZE) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(buf, size, "%s/ces_test_XXXXXX", base);
    return 0;
}

int ces_test_mkdtemp(char *dir, size_t size)
{
    return tmp_template(dir, size) == 0 && mkdtemp(dir) != NULL ? 0 : -1;
}

char *ces_test_tmpdir(void)
{
    static char dir[CES_TEST_TMPDIR_SIZE];
    const char *base = ces_test_tmp_base();
    char **more;

    if (strlen(base) > CES_TEST_TMP_BASE_MAX)
        fail_msg("TMPDIR %s is too long for the tests' paths (at most %d characters)", base,
                 CES_TEST_TMP_BASE_MAX);
    if (ces_test_mkdtemp(dir, sizeof(dir)) != 0)
        fail_msg("cannot make a directory in %s: %s", base, strerror(errno));
    if (made_by != getpid()) { /* the first in this process */
        remove_made();
        made_by = getpid();
        assert_int_equal(atexit(remove_made), 0);
    }
    more = realloc(made, (nmade + 1) * sizeof(*made));
    assert_non_null(more);
    made = more;
    made[nmade] = strdup(dir);
    assert_non_null(made[nmade]);
    nmade++;
    return dir;
}

void ces_test_sock_path(char *buf, size_t size, const char *name)
{
    if (strlen(name) > CES_TEST_SOCK_NAME_MAX)
        fail_msg("socket name %s is longer than %d characters", name, CES_TEST_SOCK_NAME_MAX);
    snprintf(buf, size, "%s/%s", ces_test_tmpdir(), name);
}

int ces_test_tmpfile(void)
{
    char path[CES_TEST_TMPDIR_SIZE];
    int fd;

    if (tmp_template(path, sizeof(path)) != 0)
        return -1;
    fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    return fd;
}

void ces_test_dir_entries(const char *dir, char *out, size_t size)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    size_t len = 0;

    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(list[i]->d_name, ".") != 0 && strcmp(list[i]->d_name, "..") != 0)
            len += (size_t)snprintf(out + len, size - len, "%s;", list[i]->d_name);
        free(list[i]);
    }
    free(list);
}

void ces_test_remove_in(const char *dir, const char *names)
{
    char path[512];

    for (const char *n = names; *n != '\0'; n += strlen(n) + 1) {
        snprintf(path, sizeof(path), "%s/%s", dir, n);
        assert_int_equal(remove(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

void ces_test_put_program(const char *bindir, const char *name, const char *script)
{
    char path[512];

    assert_int_equal(mkdir(bindir, 0755), 0);
    snprintf(path, sizeof(path), "%s/%s", bindir, name);
    ces_test_put_file(path, script);
    assert_int_equal(chmod(path, 0755), 0);
}

void ces_test_put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

pid_t ces_test_idle_reader(const char *fifo, int opened)
{
    int fd = opened ? open(fifo, O_RDONLY | O_NONBLOCK) : -1;
    pid_t pid;

    assert_true(!opened || fd >= 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sleep(20);
        if (fd < 0)
            fd = open(fifo, O_RDONLY | O_NONBLOCK);
        _exit(fd >= 0 && close(fd) == 0 ? 0 : 1);
    }
    if (fd >= 0)
        assert_int_equal(close(fd), 0);
    return pid;
}

void ces_test_end_reader(pid_t pid)
{
    int st;

    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
}
