#version 450
// grid: the target as COLS x ROWS cells, each coloured by one packed RGBA
// value of a storage buffer (alpha forced opaque): what a buffer holds, shown.
layout(push_constant) uniform Push { uint cols, rows, width, height; } pc;
layout(std430, set = 0, binding = 0) readonly buffer Cells { uint cell[]; } cells;
layout(location = 0) out vec4 out_color;

void main()
{
    uint x = uint(gl_FragCoord.x) * pc.cols / pc.width;
    uint y = uint(gl_FragCoord.y) * pc.rows / pc.height;
    vec4 c = unpackUnorm4x8(cells.cell[y * pc.cols + x]);
    out_color = vec4(c.rgb, 1.0);
}
