#define _GNU_SOURCE
#include "chostile.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(void) { return -errno; }

int hostile_ptrace_attach(pid_t pid) {
    if (ptrace(PTRACE_ATTACH, pid, 0, 0) != 0) return fail();
    waitpid(pid, NULL, __WALL);
    ptrace(PTRACE_DETACH, pid, 0, 0);
    return 0;
}

int hostile_ptrace_seize(pid_t pid) {
    if (ptrace(PTRACE_SEIZE, pid, 0, 0) != 0) return fail();
    ptrace(PTRACE_DETACH, pid, 0, 0);
    return 0;
}

extern char **environ;
int hostile_process_vm_read(pid_t pid) {
    char byte;
    struct iovec local = { &byte, 1 }, remote = { (void *)&environ, 1 };
    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0) return fail();
    return 0;
}

int hostile_kill(pid_t pid, int sig) { return kill(pid, sig) == 0 ? 0 : fail(); }

struct handle_buffer {
    struct file_handle handle;
    unsigned char bytes[MAX_HANDLE_SZ];
};

static int own_handle(const char *own_file, struct handle_buffer *buffer) {
    int mount_id = 0;
    memset(buffer, 0, sizeof *buffer);
    buffer->handle.handle_bytes = MAX_HANDLE_SZ;
    return name_to_handle_at(AT_FDCWD, own_file, &buffer->handle, &mount_id, 0) == 0 ? 0 : fail();
}

int hostile_name_to_handle(const char *own_file, int *type) {
    struct handle_buffer buffer;
    int result = own_handle(own_file, &buffer);
    if (result == 0) *type = buffer.handle.handle_type;
    return result;
}

int hostile_open_by_own_handle(const char *own_file, const char *mount_path) {
    struct handle_buffer buffer;
    int result = own_handle(own_file, &buffer);
    if (result != 0) return result;
    int mount_fd = open(mount_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (mount_fd < 0) mount_fd = open(mount_path, O_PATH | O_CLOEXEC);
    if (mount_fd < 0) return fail();
    int fd = open_by_handle_at(mount_fd, &buffer.handle, O_RDONLY | O_CLOEXEC);
    int error = errno;
    close(mount_fd);
    if (fd >= 0) { close(fd); return 0; }
    return -error;
}

int hostile_open_by_guessed_handle(const char *own_file, const char *mount_path, unsigned long long inode, int gens) {
    struct handle_buffer buffer;
    int result = own_handle(own_file, &buffer);
    if (result != 0) return result;
    int mount_fd = open(mount_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (mount_fd < 0) return fail();
    int opened = 0, last = 0;
    for (int layout = 0; layout < 2; layout++) {
        for (int gen = 0; gen < gens; gen++) {
            struct handle_buffer guess = buffer;
            if (layout == 0) {   // FILEID_INO32_GEN: u32 ino, u32 gen
                uint32_t words[2] = { (uint32_t)inode, (uint32_t)gen };
                memcpy(guess.handle.f_handle, words, sizeof words);
            } else {             // 64-bit inode (tmpfs): u32 gen, u32 ino low, u32 ino high
                uint32_t words[3] = { (uint32_t)gen, (uint32_t)inode, (uint32_t)(inode >> 32) };
                if (guess.handle.handle_bytes >= sizeof words) memcpy(guess.handle.f_handle, words, sizeof words);
            }
            int fd = open_by_handle_at(mount_fd, &guess.handle, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) { opened++; close(fd); } else last = -errno;
        }
    }
    close(mount_fd);
    return opened > 0 ? opened : last;
}

int hostile_namespace_child(const char *source, const char *target, const char *target_file, const char *source_file) {
    pid_t pid = fork();
    if (pid < 0) return fail();
    if (pid == 0) {
        int bits = 0;
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0) bits |= 1;
        if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) == 0) bits |= 2;
        int fd = open(target_file, O_RDONLY);
        if (fd >= 0) { bits |= 4; close(fd); }
        fd = open(source_file, O_RDONLY);
        if (fd >= 0) { bits |= 8; close(fd); }
        _exit(bits);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 64;
}

int hostile_mount_bind(const char *source, const char *target) {
    return mount(source, target, NULL, MS_BIND, NULL) == 0 ? 0 : fail();
}

int hostile_mount_tmpfs(const char *target) {
    return mount("none", target, "tmpfs", 0, NULL) == 0 ? 0 : fail();
}

int hostile_chroot(const char *path) { return chroot(path) == 0 ? 0 : fail(); }

int hostile_connect_path(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail();
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    strncpy(address.sun_path, path, sizeof address.sun_path - 1);
    int result = connect(fd, (struct sockaddr *)&address, sizeof address) == 0 ? 0 : fail();
    close(fd);
    return result;
}

int hostile_tiocsti(int fd, char c) { return ioctl(fd, TIOCSTI, &c) == 0 ? 0 : fail(); }
