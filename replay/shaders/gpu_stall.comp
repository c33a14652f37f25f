#version 450
// replay/shaders/gpu_stall.comp: the gpu delay. One invocation runs OUTER x
// INNER xorshift steps: each needs the one before, so no GPU can overlap them
// and no compiler can fold the loop into a closed form; the result is stored
// so the loop cannot be dropped. Two nested loops, because llvmpipe ends any
// one loop after 65535 iterations. gpu_stall.c calibrates OUTER on the device.
layout(local_size_x = 1) in;
layout(push_constant) uniform Push { uint outer; uint inner; uint seed; } pc;
layout(std430, set = 0, binding = 0) buffer Sink { uint value; } sink;

void main()
{
    uint x = pc.seed;
    for (uint i = 0u; i < pc.outer; i++) {
        for (uint k = 0u; k < pc.inner; k++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
        }
    }
    sink.value = x;
}
