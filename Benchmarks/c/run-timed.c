/*
 * run-timed OUTPUT COMMAND [ARGUMENT...]
 *
 * Times a whole process, start to exit: forks, runs COMMAND with its standard output
 * written to the file OUTPUT (standard error passes through), waits for it with wait4, and
 * prints one line of key=value pairs:
 *   wall_ms=… user_ms=… sys_ms=… peak_rss_kib=… output_bytes=… exit=…
 * wall_ms is CLOCK_MONOTONIC from just before fork to just after wait4 returns; user_ms and
 * sys_ms are the child's ru_utime and ru_stime (all its threads), so wall time well above
 * user + sys is time spent waiting (the disk, a lock, other processes on the cores);
 * peak_rss_kib is the child's ru_maxrss. Exits 1 when COMMAND fails.
 * Used by Benchmarks/run.sh and Benchmarks/store.sh (extra keys are ignored by readers).
 *
 * Build: cc -O2 -o run-timed run-timed.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double timeval_ms(struct timeval tv) {
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: run-timed OUTPUT COMMAND [ARGUMENT...]\n");
        return 2;
    }
    int output = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (output < 0) { perror(argv[1]); return 1; }

    double start = now_ms();
    pid_t child = fork();
    if (child < 0) { perror("fork"); return 1; }
    if (child == 0) {
        if (dup2(output, STDOUT_FILENO) < 0) _exit(127);
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(child, &status, 0, &usage) < 0) { perror("wait4"); return 1; }
    double end = now_ms();

    struct stat info;
    long long bytes = fstat(output, &info) == 0 ? (long long)info.st_size : -1;
    close(output);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("wall_ms=%.3f user_ms=%.1f sys_ms=%.1f peak_rss_kib=%ld output_bytes=%lld exit=%d\n",
           end - start, timeval_ms(usage.ru_utime), timeval_ms(usage.ru_stime), usage.ru_maxrss, bytes, code);
    return code == 0 ? 0 : 1;
}
