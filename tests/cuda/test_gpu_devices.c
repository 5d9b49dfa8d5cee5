/*
 * tests/cuda/test_gpu_devices.c CESYNC - `cesync devices` on this machine's
 * GPUs: it exits 0 and lists as many GPUs as cuDeviceGetCount counts,
 * numbered 0..n-1, with the peer matrix's n rows and its verdict; exit 77
 * (skipped) where the driver finds no GPU.  Exits 0 pass, 1 fail.
 */
#include "cu_api.h"
#include "gpu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char cmd[4096], line[4096];
    int n = 0, rows = 0, peer_rows = 0, verdict = 0, part = 0, st;
    FILE *p;

    if (argc != 2) {
        fprintf(stderr, "usage: %s CESYNC\n", argv[0]);
        return 1;
    }
    alarm(GPU_DEADLINE_S); /* a command that hangs fails here, not at ctest's timeout */
    if (ces_cu_load() == NULL || cuInit(0) != CUDA_SUCCESS ||
        cuDeviceGetCount(&n) != CUDA_SUCCESS || n < 1) {
        printf("skipped: no GPU\n");
        return GPU_SKIP;
    }
    snprintf(cmd, sizeof(cmd), "'%s' devices", argv[1]);
    p = popen(cmd, "r");
    if (p == NULL) {
        printf("FAIL: cannot run %s\n", cmd);
        return 1;
    }
    /* part 0: the GPU table, 1: the peer matrix, 2: after it */
    while (fgets(line, sizeof(line), p) != NULL) {
        fputs(line, stdout);
        if (strcmp(line, "\n") == 0) {
            part++;
        } else if (part == 0 && strncmp(line, "GPU ", 4) != 0) {
            if (atoi(line) != rows) {
                printf("FAIL: GPU row %d is numbered %d\n", rows, atoi(line));
                return 1;
            }
            rows++;
        } else if (part == 1 && strncmp(line, "peers:", 6) != 0 &&
                   strncmp(line, "from\\to", 7) != 0) {
            peer_rows++;
        } else if (part == 2 && strncmp(line, "verdict: cesync run can use up to ", 34) == 0) {
            verdict++;
        }
    }
    st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("FAIL: cesync devices exited with status %d\n", st);
        return 1;
    }
    if (rows != n || peer_rows != n || verdict != 1) {
        printf("FAIL: %d GPU rows, %d peer rows and %d verdicts for %d GPUs "
               "(cuDeviceGetCount)\n",
               rows, peer_rows, verdict, n);
        return 1;
    }
    printf("PASSED: %d GPU%s listed, as cuDeviceGetCount counts\n", n, n == 1 ? "" : "s");
    return 0;
}
