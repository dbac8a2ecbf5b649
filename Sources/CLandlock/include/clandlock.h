#ifndef CLANDLOCK_H
#define CLANDLOCK_H

// The kernel calls `ical run` needs to start an app in a Landlock sandbox (see
// Sources/OpenEventKitBroker/Sandbox). Implemented in clandlock.c; declared here so that
// Swift sees only plain C functions.

#endif
