#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
/* taskserve's response compression: gzip (RFC 1952) with zlib's deflate. */
#include <zlib.h>

/* deflateInit2 is a macro (it passes the library's version and the stream's size), which Swift
   cannot call: this starts `stream` writing the gzip format (15-bit window + 16) at `level`. */
static inline int taskbase_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/* inflateInit2 likewise, reading the gzip format only (for tests and clients). */
static inline int taskbase_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}

#endif
