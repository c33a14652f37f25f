#version 450
// Three triangles side by side, one per draw of multi_draw.c.
void main()
{
    float x = float(gl_VertexIndex / 3) * 0.6 - 0.9;
    vec2 corner[3] = vec2[](vec2(0.0, -0.8), vec2(0.5, 0.8), vec2(0.0, 0.8));
    gl_Position = vec4(corner[gl_VertexIndex % 3] + vec2(x, 0.0), 0.0, 1.0);
}
