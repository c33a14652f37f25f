#version 460
// modern: bindless textures: a runtime-sized, partially bound array indexed
// per instance with a non-uniform index.
#extension GL_EXT_nonuniform_qualifier : require

layout(set = 0, binding = 0) uniform sampler samp;
layout(set = 0, binding = 1) uniform texture2D textures[];
layout(location = 0) in vec2 in_uv;
layout(location = 1) flat in uint in_texture;
layout(location = 0) out vec4 out_color;

void main()
{
    vec3 c = texture(sampler2D(textures[nonuniformEXT(in_texture)], samp), in_uv).rgb;
    out_color = vec4(c, 1.0);
}
