/*
 * compare/vector.h — helpers for the few loops of compare/ that do per-pixel
 * arithmetic (internal; not part of compare.h).
 *
 * Those loops are written so the compiler vectorises them; a function marked
 * RT_VECTOR_CLONES is built once per vector width (AVX-512, AVX2, baseline)
 * and the widest the CPU has is chosen at load time (GNU ifunc). Every clone
 * does the same arithmetic (ISO C mode: no FMA contraction), so results do
 * not depend on the CPU. Elsewhere the macro is empty.
 */
#ifndef RT_COMPARE_VECTOR_H
#define RT_COMPARE_VECTOR_H

#if defined(__x86_64__) && defined(__has_attribute) && defined(__linux__)
#if __has_attribute(target_clones)
#define RT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef RT_VECTOR_CLONES
#define RT_VECTOR_CLONES
#endif

/* Byte I (0 = R) of an RGBA pixel loaded as a 32-bit word, whatever the byte order. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RT_PIXEL_BYTE(u, i) ((int)((u) >> (24 - 8 * (i)) & 255))
#else
#define RT_PIXEL_BYTE(u, i) ((int)((u) >> (8 * (i)) & 255))
#endif

#endif
