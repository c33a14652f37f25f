#version 450
// textured: a spinning cube; the matrices come from a uniform buffer the app
// rewrites every frame through persistently mapped memory.
layout(set = 0, binding = 0) uniform Frame {
    mat4 mvp;
    mat4 model;
} frame;
layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 0) out vec2 out_uv;
layout(location = 1) out vec3 out_normal;

void main()
{
    gl_Position = frame.mvp * vec4(in_pos, 1.0);
    out_uv = in_uv;
    out_normal = mat3(frame.model) * in_normal;
}
