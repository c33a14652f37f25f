/*
 * tests/apps/common/app.h — the tiny framework under retrace's sample apps.
 *
 * Owns: option parsing (--frames, --offscreen, --validate, --screenshot-dir,
 * --screenshot-frames, --width, --height, app options), the Vulkan instance
 * (through volk; the loader's layers apply), the validation messenger and its
 * message count, device and queue choice with requested features checked, the
 * render target (an XCB window + FIFO swapchain, or with --offscreen ordinary
 * images and no window system at all), the frame loop with its synchronisation,
 * and screenshots of presented frames as frame_NNNNNN.png (8-bit RGBA).
 * Must not touch: anything of retrace itself but common/status.h; the apps are
 * what the capture layer is proven on, so they stay independent of it.
 * Entry point: rt_app_main() with an rt_app_desc whose callbacks build the
 * app's resources (setup), record each frame (record) and free them (teardown).
 * Apps animate by frame number only, so every run draws the same pixels.
 */
#ifndef RT_APP_H
#define RT_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <volk.h>

#include "status.h"

#define RT_APP_SLOTS 2       /* frames in flight */
#define RT_APP_MAX_IMAGES 8  /* swapchain images we accept */
#define RT_APP_MAX_RANGES 64 /* --screenshot-frames ranges */

/** Returns an RT_ERR_INTERNAL status from the enclosing function on failure. */
#define RT_VK(expr)                                                          \
    do {                                                                     \
        VkResult rt__vr = (expr);                                            \
        if (rt__vr != VK_SUCCESS)                                            \
            return rt_errorf(RT_ERR_INTERNAL, "%s failed: %s", #expr,        \
                             rt_app_result_name(rt__vr));                    \
    } while (0)

struct rt_app;

/** One integer option an app adds to the common ones ("--threads N"). */
struct rt_app_int_option {
    const char *name; /* without the dashes */
    const char *help;
    int *value;       /* holds the default on entry */
    int min, max;
};

/** One frame being recorded. The target image starts each frame in
 * COLOR_ATTACHMENT_OPTIMAL with undefined contents; an app that leaves it in
 * another layout (a copy source) updates layout/stage/access so the framework's
 * closing barrier starts from the right place. */
struct rt_app_frame {
    uint32_t number; /* 1-based: frame 1 is the first presented image */
    uint32_t slot;   /* 0..RT_APP_SLOTS-1: which per-frame resources are free */
    uint32_t image_index;
    VkImage image;
    VkImageView view;
    VkCommandBuffer cmd; /* primary, begun, for this frame's current submission */
    VkImageLayout layout;
    VkPipelineStageFlags2 stage;
    VkAccessFlags2 access;
    uint32_t submits; /* submissions already made for this frame */
    bool kept;        /* desc->keeps_target: the image holds what it last showed */
};

struct rt_app_desc {
    const char *name;    /* "triangle": executable rt_app_triangle */
    const char *summary; /* one line for --help */
    /* Features the app uses; NULL for none. Each true member is checked
     * against the device and enabled; a missing one exits 4. */
    const VkPhysicalDeviceFeatures *features10;
    const VkPhysicalDeviceVulkan11Features *features11;
    const VkPhysicalDeviceVulkan12Features *features12;
    const VkPhysicalDeviceVulkan13Features *features13;
    /* Vulkan 1.2 features enabled where the device has them; the app reads
     * app->enabled12 to choose its path. */
    const VkPhysicalDeviceVulkan12Features *optional12;
    /* A device extension enabled where the device has it (app->optional_extension says). */
    const char *optional_extension;
    /* The framework itself synchronises with vkQueueSubmit2, barrier2 and one
     * timeline semaphore instead of fences (the modern app). */
    bool sync2;
    /* Frames draw over what the target image last showed instead of
     * discarding it (frame->kept says whether it showed anything yet). */
    bool keeps_target;
    const struct rt_app_int_option *options;
    uint32_t option_count;
    rt_status (*setup)(struct rt_app *app, void *user);
    rt_status (*record)(struct rt_app *app, void *user, struct rt_app_frame *frame);
    /* Optional: runs after the frame was submitted and presented. */
    rt_status (*after_frame)(struct rt_app *app, void *user, struct rt_app_frame *frame);
    /* Runs once the device is idle, also after a failed setup: must accept
     * partly built state (null handles). */
    void (*teardown)(struct rt_app *app, void *user);
};

struct rt_app_args {
    uint32_t frames, width, height;
    bool offscreen, validate, help;
    const char *screenshot_dir;
    uint32_t range_count;
    uint32_t ranges[RT_APP_MAX_RANGES][2]; /* inclusive first, last */
};

struct rt_app_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped; /* non-NULL when created mapped (host-visible, coherent) */
};

struct rt_app_slot {
    VkCommandPool pool;
    VkCommandBuffer cmd[2]; /* a frame may split its work into two submissions */
    VkFence fence;          /* fence mode */
    uint64_t done_value;    /* sync2 mode: timeline value of its last submission */
    VkSemaphore acquired;   /* swapchain mode */
};

struct rt_app {
    const struct rt_app_desc *desc;
    struct rt_app_args args;
    uint32_t validation_messages;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem_props;
    VkPhysicalDeviceVulkan12Features enabled12; /* pNext is not meaningful */
    bool optional_extension;                    /* desc->optional_extension was enabled */
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    /* Render target: swapchain images, or ordinary images with --offscreen. */
    VkFormat format;
    VkExtent2D extent;
    uint32_t image_count;
    VkImage images[RT_APP_MAX_IMAGES];
    VkImageView views[RT_APP_MAX_IMAGES];
    VkDeviceMemory offscreen_memory[RT_APP_MAX_IMAGES];
    VkSemaphore rendered[RT_APP_MAX_IMAGES]; /* per image: present waits on it */
    VkImageLayout shown[RT_APP_MAX_IMAGES];  /* per image: its layout after its last frame (UNDEFINED: none) */
    void *xcb;          /* xcb_connection_t *, kept opaque here */
    uint32_t window;    /* xcb_window_t */
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    struct rt_app_slot slots[RT_APP_SLOTS];
    VkSemaphore timeline; /* sync2 mode */
    uint64_t timeline_value;
    VkCommandPool upload_pool;
    /* Screenshot readback buffer (host visible, mapped), sized for one frame. */
    struct rt_app_buffer shot;
};

/** Runs an app: parses argv, builds Vulkan, runs desc->setup, the frame loop
 * and desc->teardown. Returns the process exit code: 0 ok, 1 validation
 * messages or a failed self-check, 2 usage, 4 no device or missing feature,
 * 5 internal error. Prints the one-line reason of any failure on stderr. */
int rt_app_main(const struct rt_app_desc *desc, void *user, int argc, char **argv);

/** Submits what frame->cmd holds so far and begins a fresh command buffer for
 * a later submission of the same frame (readback's check). */
RT_MUST_CHECK rt_status rt_app_frame_split(struct rt_app *app, struct rt_app_frame *frame);

/** Waits until every submission of FRAME has completed on the device. */
RT_MUST_CHECK rt_status rt_app_frame_wait(struct rt_app *app, const struct rt_app_frame *frame);

/* --- helpers (app_util.c) ------------------------------------------------ */

struct rt_app_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
};

const char *rt_app_result_name(VkResult r);

RT_MUST_CHECK rt_status rt_app_memory_type(const struct rt_app *app, uint32_t type_bits,
                                           VkMemoryPropertyFlags want, uint32_t *index_out);

/** A buffer with its own memory. HOST_VISIBLE buffers get coherent memory and
 * stay mapped when MAP is set; SHADER_DEVICE_ADDRESS usage gets an
 * address-capable allocation. */
RT_MUST_CHECK rt_status rt_app_buffer_create(struct rt_app *app, VkDeviceSize size,
                                             VkBufferUsageFlags usage,
                                             VkMemoryPropertyFlags props, bool map,
                                             struct rt_app_buffer *buffer_out);
void rt_app_buffer_destroy(struct rt_app *app, struct rt_app_buffer *buffer);

/** A device-local buffer filled with DATA through a staging buffer and
 * vkCmdCopyBuffer (submitted and waited for before returning). */
RT_MUST_CHECK rt_status rt_app_buffer_upload(struct rt_app *app, const void *data,
                                             VkDeviceSize size, VkBufferUsageFlags usage,
                                             struct rt_app_buffer *buffer_out);

/** A 2D device-local image and a view of all its mip levels. */
RT_MUST_CHECK rt_status rt_app_image_create(struct rt_app *app, VkFormat format,
                                            VkExtent2D extent, uint32_t mip_levels,
                                            VkImageUsageFlags usage,
                                            VkImageAspectFlags aspect,
                                            struct rt_app_image *image_out);
void rt_app_image_destroy(struct rt_app *app, struct rt_app_image *image);

RT_MUST_CHECK rt_status rt_app_shader(struct rt_app *app, const uint32_t *code,
                                      size_t size, VkShaderModule *module_out);

/** An image layout transition (barrier2 in sync2 mode, else the legacy call:
 * stages and accesses must then be legacy bits). */
void rt_app_image_barrier(struct rt_app *app, VkCommandBuffer cmd, VkImage image,
                          VkImageAspectFlags aspect, uint32_t base_mip, uint32_t mip_count,
                          VkImageLayout old_layout, VkImageLayout new_layout,
                          VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                          VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);

/** A global memory barrier, same rules as rt_app_image_barrier. */
void rt_app_memory_barrier(struct rt_app *app, VkCommandBuffer cmd,
                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);

/** One-time command buffer for uploads: begin, then end = submit and wait. */
RT_MUST_CHECK rt_status rt_app_upload_begin(struct rt_app *app, VkCommandBuffer *cmd_out);
RT_MUST_CHECK rt_status rt_app_upload_end(struct rt_app *app, VkCommandBuffer cmd);

/** What a graphics pipeline needs that differs between the apps. */
struct rt_app_pipeline_desc {
    VkShaderModule vert, frag;
    VkPipelineLayout layout;
    VkRenderPass render_pass;   /* VK_NULL_HANDLE: dynamic rendering */
    VkFormat color_format;      /* dynamic rendering only */
    VkFormat depth_format;      /* dynamic rendering only; UNDEFINED for none */
    const VkVertexInputBindingDescription *bindings;
    uint32_t binding_count;
    const VkVertexInputAttributeDescription *attributes;
    uint32_t attribute_count;
    bool depth_test;
    bool blend; /* premultiplied-alpha "over" */
};
RT_MUST_CHECK rt_status rt_app_graphics_pipeline(struct rt_app *app,
                                                 const struct rt_app_pipeline_desc *d,
                                                 VkPipeline *pipeline_out);

/** Viewport and scissor covering the whole target (pipelines make them dynamic). */
void rt_app_set_viewport(struct rt_app *app, VkCommandBuffer cmd);

/** A single-subpass render pass: the target format in COLOR_ATTACHMENT_OPTIMAL
 * (cleared), plus DEPTH_FORMAT (cleared, discarded) unless UNDEFINED. */
RT_MUST_CHECK rt_status rt_app_render_pass(struct rt_app *app, VkFormat depth_format,
                                           VkRenderPass *pass_out);

/** One framebuffer per target image, with an optional shared depth view. */
RT_MUST_CHECK rt_status rt_app_framebuffers(struct rt_app *app, VkRenderPass pass,
                                            VkImageView depth_view,
                                            VkFramebuffer framebuffers_out[RT_APP_MAX_IMAGES]);
void rt_app_framebuffers_destroy(struct rt_app *app, VkFramebuffer fbs[RT_APP_MAX_IMAGES]);

/** Begins PASS on FRAMEBUFFER over the whole target, with CLEAR_COUNT clear values. */
void rt_app_begin_render_pass(struct rt_app *app, VkCommandBuffer cmd, VkRenderPass pass,
                              VkFramebuffer framebuffer, const VkClearValue *clears,
                              uint32_t clear_count, VkSubpassContents contents);

/** A compute pipeline of the SPIR-V CODE (SIZE bytes, entry point "main") with LAYOUT. */
RT_MUST_CHECK rt_status rt_app_compute_pipeline(struct rt_app *app, const uint32_t *code,
                                                size_t size, VkPipelineLayout layout,
                                                VkPipeline *pipeline_out);

/** Copies the frame's target image into BUFFER (tightly packed) for the host
 * to read after the frame's fence: the image is left a transfer source. */
void rt_app_frame_copy_to_buffer(struct rt_app *app, struct rt_app_frame *f, VkBuffer buffer);

/* --- internals shared by the framework's files ---------------------------- */

RT_MUST_CHECK rt_status rt_app_parse_args(const struct rt_app_desc *desc, int argc,
                                          char **argv, struct rt_app_args *args_out);
void rt_app_print_help(const struct rt_app_desc *desc);
bool rt_app_wants_screenshot(const struct rt_app_args *args, uint32_t frame);
RT_MUST_CHECK rt_status rt_app_write_png(const char *path, uint32_t width, uint32_t height,
                                         const uint8_t *pixels, VkFormat format);

RT_MUST_CHECK rt_status rt_app_target_init(struct rt_app *app);
void rt_app_target_finish(struct rt_app *app);
RT_MUST_CHECK rt_status rt_app_run_frames(struct rt_app *app, void *user);

#endif
