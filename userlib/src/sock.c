// SPDX-License-Identifier: MIT
/*
 * sock.c - TCP helpers: ToS tagging with verification, an MSS that is a
 * multiple of 4 on data sockets (docs/userlib.md, "Float boundaries"),
 * listeners bound to one address, connect/accept/read/write with
 * deadlines. Every socket is non-blocking;
 * writes use MSG_NOSIGNAL so a dead peer is an error code, not SIGPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "inc_internal.h"

/* Largest MSS clamp for data sockets: the largest multiple of 4 that
 * TCP_MAXSEG accepts (the kernel rejects values above MAX_TCP_WINDOW,
 * 32767). Loopback's own MSS would be 65495 - 12 = 65483, which is odd. */
#define DATA_LISTEN_MSS 32764

int64_t inc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int remaining(int64_t deadline_ms)
{
	int64_t r = deadline_ms - inc_now_ms();

	if (r <= 0)
		return 0;
	return r > 1000000 ? 1000000 : (int)r;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return INC_E_SOCKET;
	return 0;
}

int inc_sock_set_tos(int fd, int family, uint8_t tos)
{
	int v = tos, got = -1;
	socklen_t len = sizeof(got);

	if (family == AF_INET6) {
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v)) < 0 ||
		    getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &got, &len) < 0)
			return INC_E_TOS;
		/* A v4-mapped peer uses IP_TOS; harmless otherwise. */
		(void)setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v));
	} else {
		if (setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v)) < 0 ||
		    getsockopt(fd, IPPROTO_IP, IP_TOS, &got, &len) < 0)
			return INC_E_TOS;
	}
	/* The kernel keeps the ECN bits of a TCP socket: compare DSCP only. */
	if ((got & 0xfc) != (tos & 0xfc))
		return INC_E_TOS;
	return 0;
}

int inc_sock_set_cork(int fd, int on)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)) < 0 ?
	       INC_E_SOCKET : 0;
}

int inc_sock_wait_drained(int fd, int timeout_ms)
{
	int64_t end = inc_now_ms() + timeout_ms;
	long pause_ns = 20000;
	int queued;

	for (;;) {
		if (ioctl(fd, SIOCOUTQ, &queued) < 0)
			return INC_E_SOCKET;
		if (queued == 0)
			return 0;
		if (inc_now_ms() >= end)
			return INC_E_TIMEOUT;
		/* No poll event says "acknowledged": back off from 20 us to 1 ms. */
		nanosleep(&(struct timespec){ 0, pause_ns }, NULL);
		if (pause_ns < 1000000)
			pause_ns *= 2;
	}
}

static void set_nodelay(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* The any-address of family with port; returns its length. */
static socklen_t any_addr(int family, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons(port);
		return sizeof(*s4);
	}
}

/* local with its port replaced by port; returns its length. */
static socklen_t with_port(const struct sockaddr_storage *local, uint16_t port,
			   struct sockaddr_storage *ss)
{
	*ss = *local;
	if (ss->ss_family == AF_INET6) {
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
		return sizeof(struct sockaddr_in6);
	}
	((struct sockaddr_in *)ss)->sin_port = htons(port);
	return sizeof(struct sockaddr_in);
}

int inc_sock_listen(const struct sockaddr_storage *local, int family, uint16_t port,
		    uint8_t tos, int data, uint16_t *bound_port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, mss = DATA_LISTEN_MSS, rc;

	if (local)
		family = local->ss_family;
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return INC_E_SOCKET;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	len = local ? with_port(local, port, &ss) : any_addr(family, port, &ss);
	/* Accepted sockets inherit the listener's ToS and MSS clamp, so the
	 * SYN-ACK already carries the tag. */
	if (data) {
		rc = inc_sock_set_tos(fd, family, tos);
		if (rc)
			goto fail_rc;
		(void)setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss));
	}
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 128) < 0 ||
	    set_nonblock(fd) < 0)
		goto fail;
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		goto fail;
	*bound_port = ntohs(family == AF_INET6 ?
			    ((struct sockaddr_in6 *)&ss)->sin6_port :
			    ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
fail:
	rc = INC_E_SOCKET;
fail_rc:
	close(fd);
	return rc;
}

/* Route MTU towards sa (UDP connect + IP_MTU), or 0 if unknown. */
static int route_mtu(const struct sockaddr *sa, socklen_t salen)
{
	int fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), mtu = 0;
	socklen_t len = sizeof(mtu);

	if (fd < 0)
		return 0;
	if (connect(fd, sa, salen) == 0) {
		if (sa->sa_family == AF_INET6)
			(void)getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &len);
		else
			(void)getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &len);
	}
	close(fd);
	return mtu;
}

static int connect_once(const struct sockaddr *sa, socklen_t salen,
			const struct sockaddr_storage *local, uint8_t tos, int data,
			int user_mss, int64_t deadline_ms, int *fd_out)
{
	struct sockaddr_storage from;
	int fd, rc, err = 0;
	socklen_t len = sizeof(err), flen;
	struct pollfd p;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return INC_E_SOCKET;
	if (local) {
		flen = with_port(local, 0, &from);
		if (bind(fd, (struct sockaddr *)&from, flen) < 0) {
			close(fd);
			return INC_E_SOCKET;
		}
	}
	/* Tag before connect() so the SYN and every later segment carry it. */
	rc = inc_sock_set_tos(fd, sa->sa_family, data ? tos : 0);
	if (rc) {
		close(fd);
		return rc;
	}
	if (data && user_mss > 0)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &user_mss,
				 sizeof(user_mss));
	if (connect(fd, sa, salen) < 0) {
		if (errno != EINPROGRESS) {
			close(fd);
			return INC_E_CONNECT;
		}
		p.fd = fd;
		p.events = POLLOUT;
		do {
			rc = poll(&p, 1, remaining(deadline_ms));
		} while (rc < 0 && errno == EINTR);
		if (rc <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 ||
		    err) {
			close(fd);
			return INC_E_CONNECT;
		}
	}
	set_nodelay(fd);
	*fd_out = fd;
	return 0;
}

int inc_sock_connect(const struct sockaddr *sa, socklen_t salen,
		     const struct sockaddr_storage *local, uint8_t tos,
		     int data, int64_t deadline_ms, int *fd_out)
{
	int fd = -1, rc, mtu, user_mss = 0, mss = 0;
	socklen_t len = sizeof(mss);

	if (data) {
		mtu = route_mtu(sa, salen);
		if (mtu > 0)
			user_mss = (mtu - (sa->sa_family == AF_INET6 ? 60 : 40)) & ~3;
		if (user_mss <= 0 || user_mss > DATA_LISTEN_MSS)
			user_mss = DATA_LISTEN_MSS;
	}
	for (;;) {
		rc = connect_once(sa, salen, local, tos, data, user_mss, deadline_ms, &fd);
		if (rc == 0)
			break;
		if (rc != INC_E_CONNECT || remaining(deadline_ms) == 0)
			return rc;
		usleep(20000);  /* the peer may not listen yet */
	}
	/* The MSS is min(our clamp, the peer's MSS option) less the TCP
	 * options; if the peer advertised something odd, reconnect once with
	 * a clamp that is a multiple of 4. The acceptor drops connections that
	 * close before their hello. */
	if (data && getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) == 0 &&
	    mss > 64 && (mss & 3)) {
		close(fd);
		rc = connect_once(sa, salen, local, tos, data, mss & ~3, deadline_ms, &fd);
		if (rc)
			return rc;
	}
	*fd_out = fd;
	return 0;
}

int inc_sock_write_all(int fd, const void *buf, size_t len, int64_t deadline_ms)
{
	const uint8_t *p = buf;
	struct pollfd pf = { .fd = fd, .events = POLLOUT };
	ssize_t n;
	int rc;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == EPIPE || errno == ECONNRESET ?
			       INC_E_CLOSED : INC_E_SOCKET;
		rc = poll(&pf, 1, remaining(deadline_ms));
		if (rc == 0)
			return INC_E_TIMEOUT;
	}
	return 0;
}

int inc_sock_read_all(int fd, void *buf, size_t len, int64_t deadline_ms)
{
	uint8_t *p = buf;
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int rc;

	while (len) {
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return INC_E_CLOSED;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == ECONNRESET ? INC_E_CLOSED : INC_E_SOCKET;
		rc = poll(&pf, 1, remaining(deadline_ms));
		if (rc == 0)
			return INC_E_TIMEOUT;
	}
	return 0;
}

/* 1 if nothing holds TCP port on the any-address of family (a family the
 * host lacks counts as free). */
static int port_free(int family, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, ok;

	if (fd < 0)
		return errno == EAFNOSUPPORT;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	len = any_addr(family, port, &ss);
	ok = bind(fd, (struct sockaddr *)&ss, len) == 0;
	close(fd);
	return ok;
}

int inc_free_port(void)
{
	unsigned lo = 32768, hi = 60999, first, last, span, k;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	struct timespec ts;

	if (f) {
		if (fscanf(f, "%u %u", &lo, &hi) != 2 || lo > hi || hi > 65535)
			lo = 32768, hi = 60999;
		fclose(f);
	}
	/* The kernel hands ports of [lo, hi] to every connect and bind to
	 * port 0: one of the ranks' own sockets could take a port from there
	 * before rank 0 binds it. Take the larger gap outside that range. */
	if (lo <= 1024 && hi >= 65535)
		return INC_E_SOCKET;
	if ((lo > 1024 ? lo - 1024 : 0) >= 65535 - hi) {
		first = 1024;
		last = lo - 1;
	} else {
		first = hi + 1;
		last = 65535;
	}
	span = last - first + 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	k = (unsigned)(ts.tv_nsec ^ (getpid() * 2654435761u)) % span;
	for (unsigned i = 0; i < span && i < 4096; i++, k = (k + 7919) % span) {
		uint16_t port = (uint16_t)(first + k);

		if (port_free(AF_INET, port) && port_free(AF_INET6, port))
			return port;
	}
	return INC_E_SOCKET;
}
