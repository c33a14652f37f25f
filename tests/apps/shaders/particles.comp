#version 450
// particles: one simulation step per frame for a fountain of particles, and
// the indirect draw arguments for the frame (GPU-prepared indirect draw).
// Every particle writes only its own slot and the instance count is an
// atomicMax, so the result does not depend on invocation order.
layout(local_size_x = 64) in;

struct Particle {
    vec4 pos;  // xy position, z age in frames, w half-size (0: not drawn)
    vec4 vel;  // xy velocity, z hue
    vec4 init; // xy launch velocity, z hue, w spawn frame
};
layout(std430, set = 0, binding = 0) buffer Particles { Particle p[]; };
layout(std430, set = 0, binding = 1) buffer Args {
    uint index_count;
    uint instance_count; // reset to 0 by the app before the dispatch
    uint first_index;
    int vertex_offset;
    uint first_instance;
} args;
layout(push_constant) uniform Push { uint frame; uint count; } pc;

const uint LIFETIME = 90;
const vec2 EMITTER = vec2(0.0, 0.7);
const float GRAVITY = 0.0012;
const float FLOOR = 0.9;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i == 0) {
        args.index_count = 6;
        args.first_index = 0;
        args.vertex_offset = 0;
        args.first_instance = 0;
    }
    if (i >= pc.count)
        return;
    Particle q = p[i];
    uint spawn = uint(q.init.w);
    if (pc.frame < spawn) {
        p[i].pos.w = 0.0;
        return;
    }
    uint age = (pc.frame - spawn) % LIFETIME;
    if (age == 0) {
        q.pos.xy = EMITTER;
        q.vel = vec4(q.init.xy, q.init.z, 0.0);
    } else {
        q.vel.y += GRAVITY;
        q.pos.xy += q.vel.xy;
        if (q.pos.y > FLOOR) {
            q.pos.y = FLOOR;
            q.vel.y *= -0.45;
        }
    }
    q.pos.z = float(age);
    q.pos.w = 0.022 * (1.0 - float(age) / float(LIFETIME)) + 0.004;
    p[i] = q;
    atomicMax(args.instance_count, i + 1);
}
