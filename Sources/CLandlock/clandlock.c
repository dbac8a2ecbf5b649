#define _GNU_SOURCE
#include "clandlock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

// Landlock's user-space API, spelled here rather than taken from <linux/landlock.h>: Debian
// 12's headers stop at ABI 2, and this file needs the later rights and fields. The values are
// the kernel's (include/uapi/linux/landlock.h); they never change once released.

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define CL_CREATE_RULESET_VERSION (1U << 0)
#define CL_RULE_PATH_BENEATH 1

#define CL_FS_EXECUTE (1ULL << 0)
#define CL_FS_WRITE_FILE (1ULL << 1)
#define CL_FS_READ_FILE (1ULL << 2)
#define CL_FS_READ_DIR (1ULL << 3)
#define CL_FS_REMOVE_DIR (1ULL << 4)
#define CL_FS_REMOVE_FILE (1ULL << 5)
#define CL_FS_MAKE_CHAR (1ULL << 6)
#define CL_FS_MAKE_DIR (1ULL << 7)
#define CL_FS_MAKE_REG (1ULL << 8)
#define CL_FS_MAKE_SOCK (1ULL << 9)
#define CL_FS_MAKE_FIFO (1ULL << 10)
#define CL_FS_MAKE_BLOCK (1ULL << 11)
#define CL_FS_MAKE_SYM (1ULL << 12)
#define CL_FS_REFER (1ULL << 13)      // ABI 2
#define CL_FS_TRUNCATE (1ULL << 14)   // ABI 3
#define CL_FS_IOCTL_DEV (1ULL << 15)  // ABI 5

#define CL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) // ABI 6
#define CL_SCOPE_SIGNAL (1ULL << 1)               // ABI 6

// The rights that apply to a file (not a folder); a rule on a file may hold only these.
#define CL_FS_FILE_RIGHTS \
    (CL_FS_EXECUTE | CL_FS_WRITE_FILE | CL_FS_READ_FILE | CL_FS_TRUNCATE | CL_FS_IOCTL_DEV)

// struct landlock_ruleset_attr as of ABI 6; the size passed to the kernel follows the ABI.
struct cl_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; // ABI 4
    uint64_t scoped;             // ABI 6
};

struct cl_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

// securebits (include/uapi/linux/securebits.h): root gets no capabilities from exec, setuid
// changes none, and nobody can undo that.
#define CL_SECBIT_NOROOT (1 << 0)
#define CL_SECBIT_NOROOT_LOCKED (1 << 1)
#define CL_SECBIT_NO_SETUID_FIXUP (1 << 2)
#define CL_SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#define CL_SECBIT_KEEP_CAPS_LOCKED (1 << 5)
#define CL_SECBIT_NO_CAP_AMBIENT_RAISE (1 << 6)
#define CL_SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1 << 7)

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

#define CL_MAX_KEEP 64

int clandlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, CL_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

static uint64_t handled_fs_for(int abi) {
    uint64_t rights = (CL_FS_MAKE_SYM << 1) - 1; // ABI 1: bits 0 to 12
    if (abi >= 2) rights |= CL_FS_REFER;
    if (abi >= 3) rights |= CL_FS_TRUNCATE;
    if (abi >= 5) rights |= CL_FS_IOCTL_DEV;
    return rights;
}

static size_t ruleset_size_for(int abi) {
    if (abi >= 6) return sizeof(struct cl_ruleset_attr);
    if (abi >= 4) return offsetof(struct cl_ruleset_attr, scoped);
    return offsetof(struct cl_ruleset_attr, handled_access_net);
}

static void fail(struct clandlock_failure *out, int stage, int error, int rule_index) {
    if (out) {
        out->stage = stage;
        out->error = error;
        out->rule_index = rule_index;
    }
}

// Builds the ruleset; returns its descriptor or -1 with `out` filled.
static int build_ruleset(int abi, const struct clandlock_rule *rules, int rule_count,
                         struct clandlock_failure *out) {
    uint64_t handled = handled_fs_for(abi);
    struct cl_ruleset_attr attr = {.handled_access_fs = handled};
    if (abi >= 6) attr.scoped = CL_SCOPE_ABSTRACT_UNIX_SOCKET | CL_SCOPE_SIGNAL;
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, ruleset_size_for(abi), 0);
    if (ruleset < 0) {
        fail(out, CLANDLOCK_STAGE_CREATE_RULESET, errno, -1);
        return -1;
    }
    for (int i = 0; i < rule_count; i++) {
        int fd = open(rules[i].path, O_PATH | O_CLOEXEC);
        if (fd < 0) {
            fail(out, CLANDLOCK_STAGE_OPEN_RULE_PATH, errno, i);
            close(ruleset);
            return -1;
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
            fail(out, CLANDLOCK_STAGE_OPEN_RULE_PATH, errno, i);
            close(fd);
            close(ruleset);
            return -1;
        }
        uint64_t allowed = rules[i].access == CLANDLOCK_READ_WRITE
                               ? handled
                               : (CL_FS_EXECUTE | CL_FS_READ_FILE | CL_FS_READ_DIR);
        if (!S_ISDIR(st.st_mode)) allowed &= CL_FS_FILE_RIGHTS;
        allowed &= handled;
        struct cl_path_beneath_attr beneath = {.allowed_access = allowed, .parent_fd = fd};
        long added = syscall(SYS_landlock_add_rule, ruleset, CL_RULE_PATH_BENEATH, &beneath, 0);
        int saved = errno;
        close(fd);
        if (added != 0) {
            fail(out, CLANDLOCK_STAGE_ADD_RULE, saved, i);
            close(ruleset);
            return -1;
        }
    }
    return ruleset;
}

// ---- Child side: async-signal-safe calls only, from fork to execve. ----

static void child_report(int pipe_fd, int stage, int error) {
    struct clandlock_failure failure = {.stage = stage, .error = error, .rule_index = -1};
    ssize_t written;
    do {
        written = write(pipe_fd, &failure, sizeof failure);
    } while (written < 0 && errno == EINTR);
    _exit(127);
}

static void sort_ints(int *values, int count) {
    for (int i = 1; i < count; i++) {
        int v = values[i], j = i - 1;
        while (j >= 0 && values[j] > v) {
            values[j + 1] = values[j];
            j--;
        }
        values[j + 1] = v;
    }
}

static int close_between(unsigned int low, unsigned int high) { // inclusive
    if (low > high) return 0;
    if (syscall(SYS_close_range, low, high, 0) == 0) return 0;
    if (errno != ENOSYS) return -1;
    struct rlimit limit;
    unsigned int last = high;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        limit.rlim_cur - 1 < last)
        last = (unsigned int)(limit.rlim_cur - 1);
    if (last > (1u << 20)) last = 1u << 20;
    for (unsigned int fd = low; fd <= last && fd >= low; fd++) close((int)fd);
    return 0;
}

static int has_capability(int capability) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capget, &header, data) != 0) return 0;
    return (data[capability / 32].effective >> (capability % 32)) & 1;
}

static int drop_capabilities(void) {
    int can_set_pcap = has_capability(CAP_SETPCAP);
    int bits = CL_SECBIT_NOROOT | CL_SECBIT_NOROOT_LOCKED | CL_SECBIT_NO_SETUID_FIXUP |
               CL_SECBIT_NO_SETUID_FIXUP_LOCKED | CL_SECBIT_KEEP_CAPS_LOCKED |
               CL_SECBIT_NO_CAP_AMBIENT_RAISE | CL_SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0 && (can_set_pcap || errno != EPERM))
        return -1;
    for (int capability = 0; capability < 64; capability++) {
        if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) == 0) continue;
        if (errno == EINVAL) break; // past the kernel's last capability
        if (errno == EPERM && !can_set_pcap) continue; // nothing to drop with; no_new_privs holds
        return -1;
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return -1;
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    return (int)syscall(SYS_capset, &header, data);
}

static void child_run(const char *path, char *const argv[], char *const envp[], const char *cwd,
                      int ruleset, int error_pipe, const int *keep_fds, int keep_count) {
    // Handlers inherited from the parent must not run here; ignored signals stay ignored.
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction current;
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        if (sigaction(sig, NULL, &current) != 0) continue;
        if (current.sa_handler == SIG_IGN || current.sa_handler == SIG_DFL) continue;
        struct sigaction fallback;
        memset(&fallback, 0, sizeof fallback);
        fallback.sa_handler = SIG_DFL;
        sigaction(sig, &fallback, NULL);
    }

    // Move every descriptor we still need above the kept numbers, then into place.
    int floor = 3;
    for (int i = 0; i < keep_count; i++)
        if (keep_fds[2 * i] + 1 > floor) floor = keep_fds[2 * i] + 1;
    int moved_pipe = fcntl(error_pipe, F_DUPFD_CLOEXEC, floor);
    if (moved_pipe < 0) child_report(error_pipe, CLANDLOCK_STAGE_DESCRIPTORS, errno);
    error_pipe = moved_pipe;
    int moved_ruleset = fcntl(ruleset, F_DUPFD_CLOEXEC, floor);
    if (moved_ruleset < 0) child_report(error_pipe, CLANDLOCK_STAGE_DESCRIPTORS, errno);
    ruleset = moved_ruleset;
    int moved[CL_MAX_KEEP];
    for (int i = 0; i < keep_count; i++) {
        moved[i] = fcntl(keep_fds[2 * i + 1], F_DUPFD_CLOEXEC, floor);
        if (moved[i] < 0) child_report(error_pipe, CLANDLOCK_STAGE_DESCRIPTORS, errno);
    }
    for (int i = 0; i < keep_count; i++) {
        // dup2 leaves the new descriptor without FD_CLOEXEC.
        if (dup2(moved[i], keep_fds[2 * i]) < 0)
            child_report(error_pipe, CLANDLOCK_STAGE_DESCRIPTORS, errno);
    }

    // Close every descriptor above 2 but the kept ones, the pipe and the ruleset.
    int keep[CL_MAX_KEEP + 2];
    int kept = 0;
    for (int i = 0; i < keep_count; i++)
        if (keep_fds[2 * i] > 2) keep[kept++] = keep_fds[2 * i];
    keep[kept++] = error_pipe;
    keep[kept++] = ruleset;
    sort_ints(keep, kept);
    unsigned int low = 3;
    for (int i = 0; i < kept; i++) {
        if ((unsigned int)keep[i] < low) continue;
        if ((unsigned int)keep[i] > low && close_between(low, (unsigned int)keep[i] - 1) != 0)
            child_report(error_pipe, CLANDLOCK_STAGE_CLOSE_DESCRIPTORS, errno);
        low = (unsigned int)keep[i] + 1;
    }
    if (close_between(low, ~0u) != 0)
        child_report(error_pipe, CLANDLOCK_STAGE_CLOSE_DESCRIPTORS, errno);

    if (drop_capabilities() != 0) child_report(error_pipe, CLANDLOCK_STAGE_CAPABILITIES, errno);
    // A session of its own: the terminal it shares with `ical run` (its standard streams)
    // is not its controlling terminal, so it cannot push input into it (TIOCSTI) to answer
    // the access prompt `ical run` shows there, nor open /dev/tty.
    if (setsid() < 0) child_report(error_pipe, CLANDLOCK_STAGE_SESSION, errno);
    if (cwd && chdir(cwd) != 0) child_report(error_pipe, CLANDLOCK_STAGE_CHDIR, errno);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        child_report(error_pipe, CLANDLOCK_STAGE_NO_NEW_PRIVS, errno);
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
        child_report(error_pipe, CLANDLOCK_STAGE_RESTRICT, errno);
    close(ruleset);

    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0)
        child_report(error_pipe, CLANDLOCK_STAGE_SIGNALS, errno);
    execve(path, argv, envp);
    child_report(error_pipe, CLANDLOCK_STAGE_EXEC, errno);
}

// ---- Parent side. ----

pid_t clandlock_spawn(const char *path, char *const argv[], char *const envp[],
                      const char *cwd, const struct clandlock_rule *rules, int rule_count,
                      const int *keep_fds, int keep_count,
                      struct clandlock_failure *failure_out) {
    fail(failure_out, CLANDLOCK_STAGE_NONE, 0, -1);
    if (!path || !argv || !envp || rule_count < 0 || (rule_count > 0 && !rules) ||
        keep_count < 0 || keep_count > CL_MAX_KEEP || (keep_count > 0 && !keep_fds)) {
        fail(failure_out, CLANDLOCK_STAGE_ARGUMENTS, EINVAL, -1);
        return -1;
    }
    for (int i = 0; i < keep_count; i++) {
        if (keep_fds[2 * i] < 0 || keep_fds[2 * i + 1] < 0) {
            fail(failure_out, CLANDLOCK_STAGE_ARGUMENTS, EBADF, -1);
            return -1;
        }
    }
    int abi = clandlock_abi();
    if (abi < 1) {
        fail(failure_out, CLANDLOCK_STAGE_ABI, EOPNOTSUPP, -1);
        return -1;
    }
    int ruleset = build_ruleset(abi, rules, rule_count, failure_out);
    if (ruleset < 0) return -1;

    int error_pipe[2];
    if (pipe2(error_pipe, O_CLOEXEC) != 0) {
        fail(failure_out, CLANDLOCK_STAGE_PIPE, errno, -1);
        close(ruleset);
        return -1;
    }

    // Block signals across fork so that no parent handler runs in the child before it resets
    // them; the child unblocks right before execve.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t pid = fork();
    if (pid == 0) {
        close(error_pipe[0]);
        child_run(path, argv, envp, cwd, ruleset, error_pipe[1], keep_fds, keep_count);
        _exit(127); // not reached: child_run execs or exits
    }
    int fork_error = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(error_pipe[1]);
    close(ruleset);
    if (pid < 0) {
        close(error_pipe[0]);
        fail(failure_out, CLANDLOCK_STAGE_FORK, fork_error, -1);
        return -1;
    }

    // EOF means execve succeeded (the pipe closed on exec); a record means a step failed.
    struct clandlock_failure report;
    size_t got = 0;
    while (got < sizeof report) {
        ssize_t n = read(error_pipe[0], (char *)&report + got, sizeof report - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(error_pipe[0]);
    if (got == 0) return pid;

    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (got == sizeof report)
        fail(failure_out, report.stage, report.error, -1);
    else
        fail(failure_out, CLANDLOCK_STAGE_EXEC, EIO, -1);
    return -1;
}

int clandlock_wait(pid_t pid) {
    int status;
    for (;;) {
        if (waitpid(pid, &status, 0) >= 0) break;
        if (errno != EINTR) return -1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}
