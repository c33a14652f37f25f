#version 450
// persist: the accumulation image, layer 1 on the left half, layer 0 on the right.
layout(set = 0, binding = 0) uniform sampler2DArray acc;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

void main()
{
    ivec3 size = textureSize(acc, 0);
    ivec2 p = ivec2(uv * vec2(size.xy));
    color = texelFetch(acc, ivec3(p, uv.x < 0.5 ? 1 : 0), 0);
}
