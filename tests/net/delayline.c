/*
 * delayline: a fixed one-way delay for what a network namespace sends to
 * one address, where the kernel has no netem (../shared/NETWORK-TESTING.md).
 *
 *   delayline TUN DEV DST_MAC DELAY_MS SECONDS
 *
 * Creates the tun device TUN (IP packets, no packet information), prints
 * "ready" once it exists, and from then on holds each IP packet read from
 * it DELAY_MS, then sends it out of the Ethernet device DEV to DST_MAC
 * through a packet socket: through DEV's qdisc (a tbf bottleneck stays the
 * bottleneck, its drop-tail queue drops what does not fit: the send fails,
 * the packet is gone). The caller routes the destination through TUN (ip
 * route ... dev TUN) and leaves the way back alone, so a round trip gets
 * DELAY_MS. Ends after SECONDS, or at SIGTERM/SIGINT; prints what it
 * forwarded and dropped. Bounded: 8192 packets held at most (more are
 * dropped and counted).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_HELD 8192
#define MAX_PKT  2048

static uint8_t held[MAX_HELD][MAX_PKT];
static int held_len[MAX_HELD];
static int64_t held_due[MAX_HELD];
static volatile sig_atomic_t stop;

static void on_signal(int sig) { (void)sig; stop = 1; }

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
    struct ifreq ifr = { 0 };
    struct sockaddr_ll to = { 0 };
    unsigned mac[6];
    int tun, pkt, start = 0, count = 0;
    long delay_ms, seconds;
    int64_t delay, end;
    uint64_t forwarded = 0, dropped_send = 0, dropped_full = 0;

    if (argc != 6 || sscanf(argv[3], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2], &mac[3],
                            &mac[4], &mac[5]) != 6) {
        fprintf(stderr, "usage: delayline TUN DEV DST_MAC DELAY_MS SECONDS\n");
        return 2;
    }
    delay_ms = strtol(argv[4], NULL, 10);
    seconds  = strtol(argv[5], NULL, 10);
    if (delay_ms < 0 || delay_ms > 10000 || seconds < 1 || seconds > 3600) {
        fprintf(stderr, "DELAY_MS must be in [0, 10000], SECONDS in [1, 3600]\n");
        return 2;
    }
    delay = delay_ms * 1000;

    if ((tun = open("/dev/net/tun", O_RDWR | O_NONBLOCK)) < 0) {
        perror("/dev/net/tun");
        return 1;
    }
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", argv[1]);
    if (ioctl(tun, TUNSETIFF, &ifr) < 0) {
        perror("TUNSETIFF");
        return 1;
    }
    if ((pkt = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK, htons(ETH_P_IP))) < 0) {
        perror("packet socket");
        return 1;
    }
    {
        /* what the qdisc holds counts against the socket: room for the
         * largest queue a test gives it */
        int sndbuf = 8 << 20;
        if (setsockopt(pkt, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0)
            setsockopt(pkt, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    }
    to.sll_family   = AF_PACKET;
    to.sll_protocol = htons(ETH_P_IP);
    to.sll_ifindex  = if_nametoindex(argv[2]);
    to.sll_halen    = 6;
    for (int i = 0; i < 6; i++)
        to.sll_addr[i] = mac[i];
    if (!to.sll_ifindex) {
        fprintf(stderr, "no device %s\n", argv[2]);
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("ready\n");
    fflush(stdout);

    end = now_us() + seconds * 1000000LL;
    while (!stop && now_us() < end) {
        struct pollfd pfd = { .fd = tun, .events = POLLIN };
        int64_t now = now_us(), wait = 100000;
        struct timespec ts;

        /* what is due goes out */
        while (count && held_due[start] <= now) {
            if (sendto(pkt, held[start], held_len[start], 0, (struct sockaddr *)&to, sizeof(to)) < 0)
                dropped_send++;     /* the qdisc's queue is full (or the device is down) */
            else
                forwarded++;
            start = (start + 1) % MAX_HELD;
            count--;
        }
        if (count)
            wait = held_due[start] - now;
        ts.tv_sec  = wait / 1000000;
        ts.tv_nsec = wait % 1000000 * 1000;
        if (ppoll(&pfd, 1, &ts, NULL) < 0 && errno != EINTR) {
            perror("ppoll");
            return 1;
        }
        /* everything readable now is held from now */
        for (int n = 0; n < 256; n++) {
            uint8_t buf[MAX_PKT];
            ssize_t len = read(tun, buf, sizeof(buf));
            int k;

            if (len <= 0)
                break;
            if (count == MAX_HELD) {
                dropped_full++;
                continue;
            }
            k = (start + count++) % MAX_HELD;
            memcpy(held[k], buf, len);
            held_len[k] = len;
            held_due[k] = now_us() + delay;
        }
    }
    printf("forwarded %llu dropped_at_the_qdisc %llu dropped_held_full %llu\n",
           (unsigned long long)forwarded, (unsigned long long)dropped_send,
           (unsigned long long)dropped_full);
    return 0;
}
