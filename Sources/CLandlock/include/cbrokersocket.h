#ifndef CBROKERSOCKET_H
#define CBROKERSOCKET_H

// The broker's sockets: an abstract Unix socket to listen on (which a Landlock-scoped app
// cannot reach, ABI 6), the peer's credentials, and a descriptor passed with SCM_RIGHTS
// from `ical run` to the broker. Implemented in brokersocket.c.

#include <sys/types.h>

/// Listens on the abstract Unix socket `name` (no leading NUL; at most 100 bytes), close-on-
/// exec. Returns the socket, or -1 with errno (EADDRINUSE: another broker has the name).
int cbroker_listen_abstract(const char *name);

/// Connects to the abstract Unix socket `name`, close-on-exec. Returns the socket or -1.
int cbroker_connect_abstract(const char *name);

/// The peer's process, user and group (SO_PEERCRED). Returns 0, or -1 with errno.
int cbroker_peer(int socket, pid_t *pid, uid_t *uid, gid_t *gid);

/// Sends one byte with `descriptor` attached (SCM_RIGHTS). Returns 0, or -1 with errno.
int cbroker_send_descriptor(int socket, int descriptor);

/// Receives one byte and the descriptor attached to it (close-on-exec). Returns the
/// descriptor, or -1 with errno (EBADMSG when no descriptor came with the byte).
int cbroker_receive_descriptor(int socket);

/// Starts `path` detached: a session of its own, /dev/null as its standard input, output and
/// error, every signal at its default and none blocked, and no other descriptor of this process (so that a caller waiting for the end of
/// one of its pipes is not kept waiting by a long-lived broker). Returns the process id, or
/// -1 with errno.
pid_t cbroker_spawn_detached(const char *path, char *const argv[], char *const envp[]);

#endif
