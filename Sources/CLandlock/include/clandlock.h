#ifndef CLANDLOCK_H
#define CLANDLOCK_H

// The kernel calls `ical run` needs to start an app in a Landlock sandbox (see
// Sources/OpenEventKitBroker/Sandbox). Implemented in clandlock.c; declared here so that
// Swift sees only plain C functions. Private to OpenEventKitBroker: only its
// Sandbox/Internals funnel imports this module.

#include <sys/types.h>

/// How much of a path a sandboxed program may use.
enum clandlock_access {
    /// Read files, list folders, execute programs (beneath a folder, or the one file).
    CLANDLOCK_READ_ONLY = 0,
    /// Every file-system right the running Landlock ABI handles (beneath a folder, or the
    /// file rights on the one file).
    CLANDLOCK_READ_WRITE = 1,
};

/// One rule: a path (folder or file) and what the program may do beneath it.
struct clandlock_rule {
    const char *path;
    int access; // enum clandlock_access
};

/// The step of `clandlock_spawn` that failed; with the errno it says what went wrong.
enum clandlock_stage {
    CLANDLOCK_STAGE_NONE = 0,
    CLANDLOCK_STAGE_ARGUMENTS = 1,       // invalid arguments (EINVAL)
    CLANDLOCK_STAGE_ABI = 2,             // Landlock missing or disabled
    CLANDLOCK_STAGE_CREATE_RULESET = 3,  // landlock_create_ruleset
    CLANDLOCK_STAGE_OPEN_RULE_PATH = 4,  // open(O_PATH) of rule `rule_index`
    CLANDLOCK_STAGE_ADD_RULE = 5,        // landlock_add_rule of rule `rule_index`
    CLANDLOCK_STAGE_PIPE = 6,            // the parent's error pipe
    CLANDLOCK_STAGE_FORK = 7,            // fork
    CLANDLOCK_STAGE_DESCRIPTORS = 8,     // child: moving kept descriptors into place
    CLANDLOCK_STAGE_CLOSE_DESCRIPTORS = 9, // child: closing the others
    CLANDLOCK_STAGE_CHDIR = 10,          // child: chdir to the working folder
    CLANDLOCK_STAGE_CAPABILITIES = 11,   // child: dropping capabilities
    CLANDLOCK_STAGE_NO_NEW_PRIVS = 12,   // child: prctl(PR_SET_NO_NEW_PRIVS)
    CLANDLOCK_STAGE_RESTRICT = 13,       // child: landlock_restrict_self
    CLANDLOCK_STAGE_EXEC = 14,           // child: execve
    CLANDLOCK_STAGE_SIGNALS = 15,        // child: resetting signal handlers and mask
    CLANDLOCK_STAGE_SESSION = 16,        // child: setsid (no controlling terminal)
};

/// Why `clandlock_spawn` failed: the stage, the errno, and the rule involved (or -1).
struct clandlock_failure {
    int stage;      // enum clandlock_stage
    int error;      // errno
    int rule_index; // index into `rules` for the rule stages, else -1
};

/// The highest Landlock ABI the running kernel supports, or 0 when Landlock is missing or
/// disabled. The corresponding kernel call is `landlock_create_ruleset` with
/// `LANDLOCK_CREATE_RULESET_VERSION`.
int clandlock_abi(void);

/// Starts `path` with `argv` and `envp` in a new process confined by Landlock.
///
/// The ruleset is built before fork: every file-system right of the running ABI is handled
/// (denied unless a rule allows it) and, from ABI 6 on, abstract UNIX sockets and signals are
/// scoped to the sandbox. TCP is not restricted. In the child (async-signal-safe calls only):
/// `keep_fds` (pairs: child descriptor number, parent descriptor; `keep_count` pairs) are
/// moved into place and every other descriptor above 2 is closed, the working folder becomes
/// `cwd` (when not NULL), signal handlers are reset, a session of its own begins (setsid: no
/// controlling terminal, so no TIOCSTI into the caller's), every capability is dropped (bounding
/// set, ambient set, securebits that keep root from regaining them, then an empty capset),
/// `no_new_privs` is set, the ruleset is applied, and only then `execve` runs. A failure of
/// any step is reported through a close-on-exec pipe: the function returns -1 and fills
/// `failure_out`; the program is never run without the ruleset.
///
/// Returns the child's pid, or -1 with `failure_out` filled.
pid_t clandlock_spawn(const char *path, char *const argv[], char *const envp[],
                      const char *cwd, const struct clandlock_rule *rules, int rule_count,
                      const int *keep_fds, int keep_count,
                      struct clandlock_failure *failure_out);

/// Waits for `pid` (retrying on EINTR) and returns its status the way a shell reports it:
/// the exit code, or 128 plus the signal number. Returns -1 with errno set when waitpid fails.
int clandlock_wait(pid_t pid);

#endif
