#ifndef CDBUS_SHIM_H
#define CDBUS_SHIM_H

// The only header Swift sees of libdbus-1, the D-Bus client library that DesktopNotifications
// speaks to the notification server with. libdbus-1 is loaded with dlopen on the first
// connection, not linked, so a process that never notifies does not map it. The few functions
// used are declared here with opaque pointers and the ABI's own struct layouts (checked against
// libdbus 1.14's dbus-errors.h and dbus-message.h; both have been stable since libdbus 1.0), so
// building needs no libdbus headers.
#include "../DynamicLoading/dynamic_loading.h"
#include <stdint.h>

typedef struct CDBus_connection CDBus_connection;  // DBusConnection
typedef struct CDBus_message CDBus_message;        // DBusMessage
typedef uint32_t CDBus_bool;                       // dbus_bool_t: 0 or 1, 32 bits

/// DBusError: `name` and `message` are set when an error is set (both NULL otherwise). The
/// real struct is two pointers, a word of bit fields and a pointer (32 bytes on LP64); the
/// copy is larger, so libdbus never writes past it.
typedef struct CDBus_error {
    const char *_Nullable name;
    const char *_Nullable message;
    unsigned int dummy_bits;
    void *_Nullable padding1;
    void *_Nullable reserved[4];
} CDBus_error;

/// DBusMessageIter: an opaque block the caller allocates (two pointers, ten 32-bit integers
/// and two pointers: 72 bytes on LP64), copied as 16 pointers, so big and aligned enough.
typedef struct CDBus_iterator {
    void *_Nullable opaque[16];
} CDBus_iterator;

_Static_assert(sizeof(CDBus_error) >= 2 * sizeof(void *) + sizeof(unsigned int) + sizeof(void *),
               "CDBus_error must hold a DBusError");
_Static_assert(sizeof(CDBus_iterator) >= 4 * sizeof(void *) + 10 * sizeof(uint32_t),
               "CDBus_iterator must hold a DBusMessageIter");

/// The libdbus-1 functions DesktopNotifications calls, resolved from the loaded library.
typedef struct CDBus_library {
    void (*_Nonnull error_init)(CDBus_error *error);
    void (*_Nonnull error_free)(CDBus_error *error);
    CDBus_bool (*_Nonnull validate_utf8)(const char *text, CDBus_error *_Nullable error);
    CDBus_connection *_Nullable (*_Nonnull connection_open_private)(const char *address, CDBus_error *error);
    void (*_Nonnull connection_set_exit_on_disconnect)(CDBus_connection *connection, CDBus_bool exit);
    void (*_Nonnull connection_close)(CDBus_connection *connection);
    void (*_Nonnull connection_unref)(CDBus_connection *connection);
    CDBus_bool (*_Nonnull connection_get_is_connected)(CDBus_connection *connection);
    CDBus_bool (*_Nonnull connection_get_unix_fd)(CDBus_connection *connection, int *descriptor);
    CDBus_bool (*_Nonnull connection_read_write)(CDBus_connection *connection, int timeout_milliseconds);
    CDBus_message *_Nullable (*_Nonnull connection_pop_message)(CDBus_connection *connection);
    void (*_Nonnull connection_flush)(CDBus_connection *connection);
    CDBus_message *_Nullable (*_Nonnull connection_send_with_reply_and_block)(
        CDBus_connection *connection, CDBus_message *message, int timeout_milliseconds, CDBus_error *error);
    CDBus_message *_Nullable (*_Nonnull message_new_method_call)(
        const char *_Nullable destination, const char *path, const char *_Nullable interface, const char *method);
    void (*_Nonnull message_unref)(CDBus_message *message);
    int (*_Nonnull message_get_type)(CDBus_message *message);
    const char *_Nullable (*_Nonnull message_get_sender)(CDBus_message *message);
    const char *_Nullable (*_Nonnull message_get_path)(CDBus_message *message);
    const char *_Nullable (*_Nonnull message_get_interface)(CDBus_message *message);
    const char *_Nullable (*_Nonnull message_get_member)(CDBus_message *message);
    void (*_Nonnull iter_init_append)(CDBus_message *message, CDBus_iterator *iterator);
    CDBus_bool (*_Nonnull iter_append_basic)(CDBus_iterator *iterator, int type, const void *value);
    CDBus_bool (*_Nonnull iter_open_container)(CDBus_iterator *iterator, int type,
                                               const char *_Nullable contained_signature, CDBus_iterator *sub);
    CDBus_bool (*_Nonnull iter_close_container)(CDBus_iterator *iterator, CDBus_iterator *sub);
    void (*_Nonnull iter_abandon_container_if_open)(CDBus_iterator *iterator, CDBus_iterator *sub);
    CDBus_bool (*_Nonnull iter_init)(CDBus_message *message, CDBus_iterator *iterator);
    int (*_Nonnull iter_get_arg_type)(CDBus_iterator *iterator);
    void (*_Nonnull iter_get_basic)(CDBus_iterator *iterator, void *value);
    CDBus_bool (*_Nonnull iter_next)(CDBus_iterator *iterator);
    void (*_Nonnull iter_recurse)(CDBus_iterator *iterator, CDBus_iterator *sub);
} CDBus_library;

// libdbus's constants (dbus-protocol.h).
enum {
    CDBus_type_invalid = '\0',      // DBUS_TYPE_INVALID: the end of the arguments
    CDBus_type_byte = 'y',          // DBUS_TYPE_BYTE
    CDBus_type_boolean = 'b',       // DBUS_TYPE_BOOLEAN (a dbus_bool_t)
    CDBus_type_int32 = 'i',         // DBUS_TYPE_INT32
    CDBus_type_uint32 = 'u',        // DBUS_TYPE_UINT32
    CDBus_type_string = 's',        // DBUS_TYPE_STRING (a const char *)
    CDBus_type_array = 'a',         // DBUS_TYPE_ARRAY
    CDBus_type_variant = 'v',       // DBUS_TYPE_VARIANT
    CDBus_type_dict_entry = 'e',    // DBUS_TYPE_DICT_ENTRY
    CDBus_message_method_return = 2,  // DBUS_MESSAGE_TYPE_METHOD_RETURN
    CDBus_message_error = 3,          // DBUS_MESSAGE_TYPE_ERROR
    CDBus_message_signal = 4,         // DBUS_MESSAGE_TYPE_SIGNAL
};

/// Loads libdbus-1 (libdbus-1.so.3) and resolves its functions into `library`; 0 on
/// success, else -1 with `error` holding dlerror's text (at most `size` bytes,
/// NUL-terminated). Not thread-safe: call it once (DesktopNotifications does, from a global's
/// initialiser). libdbus initialises its own thread support since 1.7.
static inline int CDBus_load(CDBus_library *_Nonnull library, char *_Nonnull error, size_t size) {
    void *handle = OpenEventKit_open("libdbus-1.so.3", "libdbus-1.3.dylib");
    void *opened = handle;
    CDBus_library loaded;
#define CDBUS_RESOLVE(field, symbol) OPENEVENTKIT_RESOLVE(handle, loaded, field, symbol)
    CDBUS_RESOLVE(error_init, "dbus_error_init")
    CDBUS_RESOLVE(error_free, "dbus_error_free")
    CDBUS_RESOLVE(validate_utf8, "dbus_validate_utf8")
    CDBUS_RESOLVE(connection_open_private, "dbus_connection_open_private")
    CDBUS_RESOLVE(connection_set_exit_on_disconnect, "dbus_connection_set_exit_on_disconnect")
    CDBUS_RESOLVE(connection_close, "dbus_connection_close")
    CDBUS_RESOLVE(connection_unref, "dbus_connection_unref")
    CDBUS_RESOLVE(connection_get_is_connected, "dbus_connection_get_is_connected")
    CDBUS_RESOLVE(connection_get_unix_fd, "dbus_connection_get_unix_fd")
    CDBUS_RESOLVE(connection_read_write, "dbus_connection_read_write")
    CDBUS_RESOLVE(connection_pop_message, "dbus_connection_pop_message")
    CDBUS_RESOLVE(connection_flush, "dbus_connection_flush")
    CDBUS_RESOLVE(connection_send_with_reply_and_block, "dbus_connection_send_with_reply_and_block")
    CDBUS_RESOLVE(message_new_method_call, "dbus_message_new_method_call")
    CDBUS_RESOLVE(message_unref, "dbus_message_unref")
    CDBUS_RESOLVE(message_get_type, "dbus_message_get_type")
    CDBUS_RESOLVE(message_get_sender, "dbus_message_get_sender")
    CDBUS_RESOLVE(message_get_path, "dbus_message_get_path")
    CDBUS_RESOLVE(message_get_interface, "dbus_message_get_interface")
    CDBUS_RESOLVE(message_get_member, "dbus_message_get_member")
    CDBUS_RESOLVE(iter_init_append, "dbus_message_iter_init_append")
    CDBUS_RESOLVE(iter_append_basic, "dbus_message_iter_append_basic")
    CDBUS_RESOLVE(iter_open_container, "dbus_message_iter_open_container")
    CDBUS_RESOLVE(iter_close_container, "dbus_message_iter_close_container")
    CDBUS_RESOLVE(iter_abandon_container_if_open, "dbus_message_iter_abandon_container_if_open")
    CDBUS_RESOLVE(iter_init, "dbus_message_iter_init")
    CDBUS_RESOLVE(iter_get_arg_type, "dbus_message_iter_get_arg_type")
    CDBUS_RESOLVE(iter_get_basic, "dbus_message_iter_get_basic")
    CDBUS_RESOLVE(iter_next, "dbus_message_iter_next")
    CDBUS_RESOLVE(iter_recurse, "dbus_message_iter_recurse")
#undef CDBUS_RESOLVE
    if (OpenEventKit_finish_load(handle, opened, error, size) != 0) return -1;
    *library = loaded;
    return 0;
}

/// A new error, initialised by libdbus (`dbus_error_init`).
static inline CDBus_error CDBus_no_error(const CDBus_library *_Nonnull library) {
    CDBus_error error;
    library->error_init(&error);
    return error;
}

#endif
