#include <zip.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// libzip (Debian libzip-dev) writes every ZIP Hosted makes (the evidence bundle); nothing in
// Hosted writes ZIP bytes by hand. These helpers cover what Swift cannot say simply.

/// The time_t that libzip must be given for an entry's DOS date and time to read `utc` in UTC:
/// libzip converts with localtime(), so the UTC fields are taken as local time. The same `utc`
/// gives the same bytes whatever the server's time zone.
static inline time_t hosted_zip_dos_time_showing_utc(time_t utc) {
    struct tm fields;
    if (gmtime_r(&utc, &fields) == NULL) return 0;
    fields.tm_isdst = -1;
    return mktime(&fields);
}

/// Adds `size` bytes (copied: libzip frees its copy when the archive is closed) as entry
/// `name`, stored or deflated, with the modification time `mtime` and mode 0644; the entry's
/// index, or -1.
static inline zip_int64_t hosted_zip_add(zip_t *archive, const char *name, const void *bytes, size_t size,
                                         int deflate, time_t mtime) {
    void *copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) return -1;
    if (size > 0) memcpy(copy, bytes, size);
    zip_source_t *source = zip_source_buffer(archive, copy, (zip_uint64_t)size, 1);
    if (source == NULL) {
        free(copy);
        return -1;
    }
    zip_int64_t index = zip_file_add(archive, name, source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
        zip_source_free(source);
        return -1;
    }
    if (zip_set_file_compression(archive, (zip_uint64_t)index, deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, deflate ? 9 : 0) < 0
        || zip_file_set_mtime(archive, (zip_uint64_t)index, mtime, 0) < 0
        /* A regular file, rw-r--r--, whoever unpacks it (libzip's default is rw-rw-rw-). */
        || zip_file_set_external_attributes(archive, (zip_uint64_t)index, 0, ZIP_OPSYS_UNIX, (zip_uint32_t)0100644 << 16) < 0) return -1;
    return index;
}

/// The size of an in-memory source's current data (after zip_close wrote it), or -1.
static inline zip_int64_t hosted_zip_source_size(zip_source_t *source) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_source_stat(source, &stat) < 0 || !(stat.valid & ZIP_STAT_SIZE)) return -1;
    return (zip_int64_t)stat.size;
}
