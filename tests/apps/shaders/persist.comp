#version 450
// persist: draws a 64x64 stamp (rings over a gradient) into a storage image,
// once; the app then copies it around for the rest of the run.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D stamp;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec2 c = vec2(p) - vec2(31.5);
    float ring = step(0.5, fract(length(c) / 6.0));
    imageStore(stamp, p, vec4(float(p.x) / 63.0, float(p.y) / 63.0, ring, 1.0));
}
