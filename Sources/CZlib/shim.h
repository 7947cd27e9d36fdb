#include <zlib.h>
#include <limits.h>
#include <string.h>

// deflateInit2 is a macro, which Swift cannot call: this fixed-signature wrapper is the only way
// Hosted compresses.

/// Room enough for `size` bytes gzipped: zlib's bound for its own format, plus the 12 bytes by
/// which gzip's header and trailer (18) exceed zlib's (6).
static inline size_t hosted_gzip_bound(size_t size) {
    return compressBound((uLong)size) + 12;
}

/// Compresses `in` as one gzip member (RFC 1952: no file name, time 0) at `level` (1-9) into
/// `out`; the compressed size, or 0 when zlib fails or `out` is too small.
static inline size_t hosted_gzip(const unsigned char *in, size_t in_size, unsigned char *out, size_t out_size, int level) {
    if (in_size > UINT_MAX || out_size > UINT_MAX) return 0;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    /* windowBits 15 + 16: a 32 KiB window, written with a gzip header and trailer. */
    if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (Bytef *)in;
    stream.avail_in = (uInt)in_size;
    stream.next_out = out;
    stream.avail_out = (uInt)out_size;
    int result = deflate(&stream, Z_FINISH);
    size_t written = (size_t)stream.total_out;
    deflateEnd(&stream);
    return result == Z_STREAM_END ? written : 0;
}
