/*
 * replay/snapshot_samples.h — multisampled images in a snapshot (trace
 * format 1.4, IMAGE_SAMPLES): while trimming, every sample is read by a
 * compute shader's texelFetch (the image gets SAMPLED usage at creation
 * where its format allows it); replaying a trimmed trace, every sample is
 * written back by one draw per sample whose pipeline's sample mask is that
 * sample alone (the image gets attachment usage inside a snapshot). Colour
 * and depth; stencil is not carried (it would need
 * VK_EXT_shader_stencil_export). No device feature is needed either way.
 *
 * Owns: the shaders' pipelines, made and freed per read or write (a
 * snapshot has few multisampled images). Uses snapshot_staging.h.
 */
#ifndef RT_REPLAY_SNAPSHOT_SAMPLES_H
#define RT_REPLAY_SNAPSHOT_SAMPLES_H

#include "replay_internal.h"
#include "trace_snapshot.h"

/** The usage a multisampled image of FORMAT with SAMPLES gets added: SAMPLED
 * while trimming, the attachment usage inside a snapshot; 0 where the
 * device cannot sample (or render to) such an image. */
VkImageUsageFlags replay_samples_usage(struct replay *r, VkFormat format, VkSampleCountFlagBits samples,
                                       bool trimming);

/** Writes one IMAGE_SAMPLES packet's samples into its image. */
rt_status replay_snapshot_write_samples(struct replay *r, const struct rt_trace_image_samples *c) RT_MUST_CHECK;

#endif
