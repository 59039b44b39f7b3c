/*
 * Print an even UDP port P on 127.0.0.1 such that P and P + 1 are both free
 * right now (an RTP/RTCP pair). Bounded: gives up after 200 tries.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
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

int main(void)
{
    for (int i = 0; i < 200; i++) {
        struct sockaddr_in a;
        socklen_t len = sizeof(a);
        int fd0 = bind_port(0), fd1, port;

        if (fd0 < 0 || getsockname(fd0, (struct sockaddr *)&a, &len) < 0)
            return 1;
        port = ntohs(a.sin_port) & ~1;
        close(fd0);
        if (port < 1024)
            continue;
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
