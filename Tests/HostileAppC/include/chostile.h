#ifndef CHOSTILE_H
#define CHOSTILE_H

// Raw kernel calls for the hostile test app (Tests/HostileApp): the ones Swift cannot call
// directly (variadic ptrace and syscall) or that must run in a forked child. Every function
// returns 0 on success or a negative errno.

#include <sys/types.h>

/// PTRACE_ATTACH on `pid` (detaches again if it worked).
int hostile_ptrace_attach(pid_t pid);
/// PTRACE_SEIZE on `pid` (detaches again if it worked).
int hostile_ptrace_seize(pid_t pid);
/// process_vm_readv of one byte at the address of `environ` in `pid`.
int hostile_process_vm_read(pid_t pid);
/// kill(pid, sig).
int hostile_kill(pid_t pid, int sig);

/// name_to_handle_at of `own_file` (a file the app can see); the handle's type into `type`.
int hostile_name_to_handle(const char *own_file, int *type);
/// open_by_handle_at with `own_file`'s handle rewritten to point at inode `inode` (both 32-
/// and 64-bit layouts, generations 0..gens-1), through a mount descriptor of `mount_path`.
/// Returns the descriptor count opened (>0: escaped) or a negative errno of the last try.
int hostile_open_by_guessed_handle(const char *own_file, const char *mount_path, unsigned long long inode, int gens);
/// open_by_handle_at with `own_file`'s own, genuine handle.
int hostile_open_by_own_handle(const char *own_file, const char *mount_path);

/// In a forked child: unshare(CLONE_NEWUSER | CLONE_NEWNS), then bind-mount `source` on
/// `target`, then open `target_file` (a path under target that is the store's file), then
/// open `source_file` directly. The child's findings come back as a bit mask: 1 unshare
/// worked, 2 the bind mount worked, 4 the file opened through the mount, 8 the file opened
/// directly. Negative: the fork failed.
int hostile_namespace_child(const char *source, const char *target, const char *target_file, const char *source_file);
/// mount(source, target, "tmpfs"/NULL bind) in this process, no namespace.
int hostile_mount_bind(const char *source, const char *target);
int hostile_mount_tmpfs(const char *target);
/// chroot(path).
int hostile_chroot(const char *path);
/// connect to the Unix socket at a file-system path.
int hostile_connect_path(const char *path);
/// TIOCSTI of `c` into descriptor `fd`.
int hostile_tiocsti(int fd, char c);

#endif
