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

/// One byte with room for one descriptor in its control data: what both ends of a descriptor
/// pass use.
struct descriptor_message {
    char byte;
    struct iovec vector;
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    struct msghdr message;
};

static void descriptor_message_init(struct descriptor_message *m, char byte) {
    memset(m, 0, sizeof *m);
    m->byte = byte;
    m->vector.iov_base = &m->byte;
    m->vector.iov_len = 1;
    m->message.msg_iov = &m->vector;
    m->message.msg_iovlen = 1;
    m->message.msg_control = m->control.space;
    m->message.msg_controllen = sizeof m->control.space;
}

int cbroker_send_descriptor(int socket, int descriptor) {
    struct descriptor_message m;
    descriptor_message_init(&m, 'F');
    struct cmsghdr *header = CMSG_FIRSTHDR(&m.message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    ssize_t sent;
    do { sent = sendmsg(socket, &m.message, MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return sent == 1 ? 0 : -1;
}

int cbroker_receive_descriptor(int socket) {
    struct descriptor_message m;
    descriptor_message_init(&m, 0);
    ssize_t received;
    do { received = recvmsg(socket, &m.message, MSG_CMSG_CLOEXEC); } while (received < 0 && errno == EINTR);
    if (received != 1) { if (received == 0) errno = ECONNRESET; return -1; }
    struct cmsghdr *header = CMSG_FIRSTHDR(&m.message);
    if (header == NULL || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS
        || header->cmsg_len != CMSG_LEN(sizeof(int)) || (m.message.msg_flags & MSG_CTRUNC)) {
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
