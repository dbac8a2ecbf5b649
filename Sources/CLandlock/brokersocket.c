#define _GNU_SOURCE
#include "cbrokersocket.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

static socklen_t abstract_address(const char *name, struct sockaddr_un *address) {
    size_t length = strlen(name);
    if (length == 0 || length > 100) { errno = ENAMETOOLONG; return 0; }
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path + 1, name, length);   // sun_path[0] stays 0: abstract
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length);
}

int cbroker_listen_abstract(const char *name) {
    struct sockaddr_un address;
    socklen_t size = abstract_address(name, &address);
    if (size == 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&address, size) != 0 || listen(fd, 64) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int cbroker_connect_abstract(const char *name) {
    struct sockaddr_un address;
    socklen_t size = abstract_address(name, &address);
    if (size == 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    while (connect(fd, (struct sockaddr *)&address, size) != 0) {
        if (errno == EINTR) continue;
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int cbroker_peer(int socket, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int cbroker_send_descriptor(int socket, int descriptor) {
    char byte = 'F';
    struct iovec vector = { .iov_base = &byte, .iov_len = 1 };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { 0 };
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    ssize_t sent;
    do { sent = sendmsg(socket, &message, MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return sent == 1 ? 0 : -1;
}

int cbroker_receive_descriptor(int socket) {
    char byte = 0;
    struct iovec vector = { .iov_base = &byte, .iov_len = 1 };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { 0 };
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    ssize_t received;
    do { received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC); } while (received < 0 && errno == EINTR);
    if (received != 1) { if (received == 0) errno = ECONNRESET; return -1; }
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (header == NULL || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS
        || header->cmsg_len != CMSG_LEN(sizeof(int)) || (message.msg_flags & MSG_CTRUNC)) {
        errno = EBADMSG;
        return -1;
    }
    int descriptor;
    memcpy(&descriptor, CMSG_DATA(header), sizeof(int));
    return descriptor;
}

pid_t cbroker_spawn_detached(const char *path, char *const argv[], char *const envp[]) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    if (posix_spawn_file_actions_init(&actions) != 0) return -1;
    if (posix_spawnattr_init(&attributes) != 0) { posix_spawn_file_actions_destroy(&actions); return -1; }
    int result = 0;
    for (int fd = 0; fd <= 2 && result == 0; fd++) {
        result = posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
    }
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    // No signal blocked or ignored by the caller carries over (a broker must end on SIGTERM).
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    if (result == 0) result = posix_spawn(&pid, path, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) { errno = result; return -1; }
    return pid;
}
