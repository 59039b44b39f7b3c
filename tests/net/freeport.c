/*
 * Print an even UDP port P on 127.0.0.1 such that P and P + 1 are both free
 * right now (an RTP/RTCP pair). Bounded: gives up after 200 tries.
 *
 * P is drawn at random below the kernel's ephemeral range
 * (/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default), from
 * 16384 up to it: the kernel never hands those out to sockets bound to port
 * 0, so a port probed here and bound later by the test's receiver cannot be
 * taken in between by some process's automatic binding (FFmpeg's own RTCP
 * socket, GStreamer's, a resolver); only an explicit bind could.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

static int bind_port(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family      = AF_INET;
    a.sin_port        = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int ephemeral_low(void)
{
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    int lo = 32768, hi;

    if (f) {
        if (fscanf(f, "%d %d", &lo, &hi) != 2)
            lo = 32768;
        fclose(f);
    }
    return lo;
}

int main(void)
{
    const int low = 16384, high = ephemeral_low() - 2;
    struct timespec ts;

    if (high <= low)
        return 1;
    clock_gettime(CLOCK_REALTIME, &ts);
    srand(ts.tv_nsec ^ getpid() << 16);
    for (int i = 0; i < 200; i++) {
        int port = (low + rand() % (high - low)) & ~1, fd0, fd1;

        fd0 = bind_port(port);
        fd1 = bind_port(port + 1);
        if (fd0 >= 0)
            close(fd0);
        if (fd1 >= 0)
            close(fd1);
        if (fd0 >= 0 && fd1 >= 0) {
            printf("%d\n", port);
            return 0;
        }
    }
    return 1;
}
