#version 450
// replay/shaders/samples_write.frag: a trimmed trace's replay writes one
// sample of every texel of a region back (snapshot_samples.c): the pipeline's
// sample mask holds only that sample, so the value returned here reaches that
// sample alone; no sample shading, so no device feature is needed. The
// words are the IMAGE_SAMPLES packet's. KIND_SINT, KIND_UINT and KIND_DEPTH
// (gl_FragDepth from the first word) pick the variants.
layout(std430, set = 0, binding = 0) readonly buffer Samples { uvec4 words[]; } src;
layout(push_constant) uniform Region { uint x, y, width, height, samples, sample_index; } pc;
#if defined(KIND_SINT)
layout(location = 0) out ivec4 color;
#elif defined(KIND_UINT)
layout(location = 0) out uvec4 color;
#elif !defined(KIND_DEPTH)
layout(location = 0) out vec4 color;
#endif

void main()
{
    uvec2 p = uvec2(gl_FragCoord.xy) - uvec2(pc.x, pc.y);
    uvec4 w = src.words[(p.y * pc.width + p.x) * pc.samples + pc.sample_index];
#if defined(KIND_SINT)
    color = ivec4(w);
#elif defined(KIND_UINT)
    color = w;
#elif defined(KIND_DEPTH)
    gl_FragDepth = uintBitsToFloat(w.x);
#else
    color = uintBitsToFloat(w);
#endif
}
