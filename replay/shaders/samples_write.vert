#version 450
// replay/shaders/samples_write.vert: one triangle over the whole viewport
// (the region being written); no inputs.
void main()
{
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
