#version 460
// modern, for devices without descriptor indexing (lavapipe before Mesa 23):
// the same fixed-size texture array, but only ever indexed with constants.
// All invocations of a quad belong to one primitive, so the branch is uniform
// where derivatives are taken.
layout(set = 0, binding = 0) uniform sampler samp;
layout(set = 0, binding = 1) uniform texture2D textures[8];
layout(location = 0) in vec2 in_uv;
layout(location = 1) flat in uint in_texture;
layout(location = 0) out vec4 out_color;

void main()
{
    vec3 c;
    switch (in_texture) {
    case 0u: c = texture(sampler2D(textures[0], samp), in_uv).rgb; break;
    case 1u: c = texture(sampler2D(textures[1], samp), in_uv).rgb; break;
    case 2u: c = texture(sampler2D(textures[2], samp), in_uv).rgb; break;
    case 3u: c = texture(sampler2D(textures[3], samp), in_uv).rgb; break;
    case 4u: c = texture(sampler2D(textures[4], samp), in_uv).rgb; break;
    case 5u: c = texture(sampler2D(textures[5], samp), in_uv).rgb; break;
    case 6u: c = texture(sampler2D(textures[6], samp), in_uv).rgb; break;
    default: c = texture(sampler2D(textures[7], samp), in_uv).rgb; break;
    }
    out_color = vec4(c, 1.0);
}
