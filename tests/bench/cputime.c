/*
 * Run a command and write its wall, user and system time, in seconds with
 * microsecond resolution (wait4's rusage; /usr/bin/time rounds to 10 ms),
 * to OUTFILE.
 *   cputime OUTFILE CMD [ARGS...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    struct rusage ru;
    int status;
    pid_t pid;
    FILE *f;

    if (argc < 3) {
        fprintf(stderr, "usage: cputime OUTFILE CMD [ARGS...]\n");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    if (pid < 0)
        return 2;
    if (!pid) {
        execvp(argv[2], argv + 2);
        perror("cputime: exec");
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) < 0)
        return 2;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!(f = fopen(argv[1], "w")))
        return 2;
    fprintf(f, "%.6f %.6f %.6f\n",
            (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
            ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
            ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    fclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
