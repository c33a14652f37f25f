#version 450
// replay/shaders/samples_read.comp: trim reads every sample of one layer's
// region of a multisampled image (snapshot_samples.c). Each invocation is a
// texel; its samples go to the storage buffer as four raw 32-bit words each
// (float bits, or the integers), in the IMAGE_SAMPLES packet's order
// (trace/FORMAT.md). KIND_SINT / KIND_UINT pick the integer variants.
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;
#if defined(KIND_SINT)
layout(set = 0, binding = 0) uniform itexture2DMS src;
#define WORDS(v) uvec4(v)
#elif defined(KIND_UINT)
layout(set = 0, binding = 0) uniform utexture2DMS src;
#define WORDS(v) (v)
#else
layout(set = 0, binding = 0) uniform texture2DMS src;
#define WORDS(v) floatBitsToUint(v)
#endif
layout(std430, set = 0, binding = 1) writeonly buffer Samples { uvec4 words[]; } dst;
layout(push_constant) uniform Region { uint x, y, width, height, samples; } pc;

void main()
{
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= pc.width || p.y >= pc.height)
        return;
    ivec2 at = ivec2(pc.x + p.x, pc.y + p.y);
    for (uint s = 0u; s < pc.samples; s++)
        dst.words[(p.y * pc.width + p.x) * pc.samples + s] = WORDS(texelFetch(src, at, int(s)));
}
