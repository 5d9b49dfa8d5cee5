/*
 * tests/tools/fork_fails.c - preloaded (LD_PRELOAD) into `cesync run` by
 * tools_test_main's test_run_probe_fork_fails: fork() fails with EAGAIN, as
 * it does for a user past RLIMIT_NPROC, a limit that root does not meet (the
 * tests often run as root), and no child is made.
 */
#include <errno.h>
#include <sys/types.h>
#include <unistd.h>

pid_t fork(void)
{
    errno = EAGAIN;
    return -1;
}
