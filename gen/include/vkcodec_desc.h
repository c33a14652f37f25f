/*
 * gen/include/vkcodec_desc.h — the shape of the tables that gen/vkgen.py emits.
 *
 * Owns: the descriptor types for structs, unions, command-argument blocks,
 * members, enums and sType lookup. The generated *_gen.c files fill these
 * tables from vk.xml (offsets and sizes computed by the C compiler); the
 * hand-written interpreter (vkcodec.c, vkcodec_walk.c, vkcodec_print.c,
 * vkcodec_random.c) walks them. Nothing here is Vulkan-version specific.
 * Must not touch: trace files, capture or replay state. Internal to gen/ and
 * its tests: other modules use vkcodec.h.
 */
#ifndef RT_VKCODEC_DESC_H
#define RT_VKCODEC_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one innermost element is, and so how it travels on the wire. */
enum rt_vk_kind {
    RT_VK_KIND_UINT,    /* unsigned integer, elem_size bytes LE */
    RT_VK_KIND_SINT,    /* signed integer, elem_size bytes LE */
    RT_VK_KIND_FLOAT,   /* float/double, their bits */
    RT_VK_KIND_BOOL32,  /* VkBool32 */
    RT_VK_KIND_SIZE,    /* size_t: always 8 bytes on the wire */
    RT_VK_KIND_ENUM,    /* a C enum (int32); aux = enum table index */
    RT_VK_KIND_FLAGS,   /* VkFlags/VkFlags64; aux = bits enum index or -1 */
    RT_VK_KIND_HANDLE,  /* a handle as its 64-bit id; aux = VkObjectType */
    RT_VK_KIND_STRUCT,  /* aux = struct index */
    RT_VK_KIND_UNION,   /* aux = struct index; raw bytes unless it has a selector */
    RT_VK_KIND_STRING,  /* one char * to a NUL-terminated string */
    RT_VK_KIND_CHAR,    /* char of a fixed char array: raw bytes */
    RT_VK_KIND_PNEXT,   /* a pNext chain of (sType, struct) nodes */
    RT_VK_KIND_VOID,    /* a byte of void data whose size vk.xml gives */
    RT_VK_KIND_OPAQUE,  /* a value kept as its number: platform handles, void * */
    RT_VK_KIND_FUNCPTR, /* a function pointer: encoded raw, decoded as NULL */
};

/* Length of the level-0 array of a pointer member, from its parent block. */
typedef uint64_t (*rt_vk_len_fn)(const void *parent);
typedef uint64_t (*rt_vk_bits_get_fn)(const void *parent);
typedef void (*rt_vk_bits_set_fn)(void *parent, uint64_t value);

struct rt_vk_member {
    const char *name;
    uint32_t offset;    /* offsetof in the parent; unused for bitfields */
    uint32_t elem_size; /* sizeof one innermost element */
    uint32_t count;     /* fixed array elements; 1 when not an array */
    int32_t aux;        /* see enum rt_vk_kind */
    uint8_t kind;       /* enum rt_vk_kind */
    uint8_t depth;      /* pointer levels above the element (0..2) */
    uint8_t out_mask;   /* bit L: what the level-L pointer points to is writable */
    uint8_t opt_mask;   /* bit L: the level-L pointer is optional */
    uint8_t bits;       /* bitfield width, 0 if not a bitfield */
    uint8_t len_scale;  /* non-zero: this member is an array length */
    int16_t selector;   /* union with a selector: the sibling member's index */
    rt_vk_len_fn len;   /* level-0 element count; NULL: one element */
    rt_vk_bits_get_fn get;
    rt_vk_bits_set_fn set;
    const int64_t *selection; /* union members: selector values choosing this one */
    uint32_t nselection;
};

struct rt_vk_struct_desc {
    const char *name;
    const struct rt_vk_member *members; /* NULL when not compiled here */
    const char *excluded;               /* why the codec refuses it, or NULL */
    const char *guard;                  /* platform macro, or NULL */
    const uint16_t *extenders;          /* structs legal in its pNext chain */
    uint32_t size;
    uint32_t align;
    uint32_t min_encoded; /* a lower bound of its encoded size */
    uint32_t stype;       /* valid when has_stype */
    uint16_t nmembers;
    uint16_t nextenders;
    bool is_union;
    bool has_stype;
    bool compiled; /* false: its platform's headers were not compiled in */
    bool features; /* VkPhysicalDeviceFeatures2 or a struct extending it: device features */
};

struct rt_vk_enum_value {
    int64_t value;
    const char *name;  /* short: common prefix and _BIT stripped */
    const char *full;  /* as in vk.xml */
};

struct rt_vk_enum_desc {
    const char *name;
    const struct rt_vk_enum_value *values;
    uint32_t count;
    bool bitmask;
};

struct rt_vk_stype_entry {
    uint32_t stype;
    uint16_t index; /* struct index */
};

struct rt_vk_object_type_name {
    int32_t type; /* VkObjectType */
    const char *name;
};

enum rt_vk_level {
    RT_VK_LEVEL_GLOBAL,
    RT_VK_LEVEL_INSTANCE,
    RT_VK_LEVEL_PHYSICAL_DEVICE,
    RT_VK_LEVEL_DEVICE,
};

/* What a command does, decided once by gen/vkgen.py (gen/command_flags.py
 * says how each is worked out), so no module classifies commands by name. */
enum rt_vk_cmd_flag {
    RT_VK_CMD_FLAG_QUERY = 1u << 0,     /* vkGet*, vkEnumerate*: tells the application something */
    RT_VK_CMD_FLAG_ENUMERATE = 1u << 1, /* two-call pattern: a count, then an array of that many */
    RT_VK_CMD_FLAG_CREATES = 1u << 2,   /* writes handles of objects it makes (not a query) */
    RT_VK_CMD_FLAG_DESTROYS = 1u << 3,  /* ends the lives of the handles in destroyed_arg */
    RT_VK_CMD_FLAG_WAITS = 1u << 4,     /* the host may see device writes after it returns */
    RT_VK_CMD_FLAG_SUBMITS = 1u << 5,   /* hands work to a queue, with a fence to signal */
    RT_VK_CMD_FLAG_MAPS = 1u << 6,      /* returns a host pointer to memory the device sees */
    /* a device command from an instance extension: resolved through vkGetInstanceProcAddr */
    RT_VK_CMD_FLAG_INSTANCE_EXTENSION = 1u << 7,
};

/* What replay's workarounds and delays act on, decided by gen/command_flags.py
 * (each rule is written there), so replay/ and capture/ never compare a
 * command's name (tests/unit/test_command_names.py). */
enum rt_vk_cmd_category {
    RT_VK_CMD_CAT_CREATES_PIPELINE = 1u << 0, /* makes VkPipelines; pipeline_cache_arg says where its cache is */
    RT_VK_CMD_CAT_EXECUTES = 1u << 1,         /* a submission that runs command buffers (not sparse binding) */
    RT_VK_CMD_CAT_PRESENTS = 1u << 2,         /* takes a VkPresentInfoKHR */
    RT_VK_CMD_CAT_ACQUIRES = 1u << 3,         /* writes the index of the swapchain image it acquired */
    RT_VK_CMD_CAT_BEGINS_RECORDING = 1u << 4, /* starts a command buffer's recording */
    RT_VK_CMD_CAT_READS_QUERIES = 1u << 5,    /* copies query results into host memory */
    RT_VK_CMD_CAT_DRAWS = 1u << 6,            /* a draw, dispatch, clear, copy, blit or resolve (numbered by --dump-draws) */
    RT_VK_CMD_CAT_RESETS_QUERIES = 1u << 7,   /* vkCmdResetQueryPool, vkResetQueryPool: (pool, first, count) after the handle */
};

/* The injected-delay event a command belongs to (replay/config.h's
 * enum rt_delay_event has the same values; replay/delays.c asserts it). */
enum rt_vk_cmd_event {
    RT_VK_EVENT_CREATE_PIPELINE, /* RT_VK_CMD_CAT_CREATES_PIPELINE */
    RT_VK_EVENT_CREATE_SHADER,   /* creates shader modules */
    RT_VK_EVENT_SUBMIT,          /* RT_VK_CMD_FLAG_SUBMITS */
    RT_VK_EVENT_PRESENT,         /* RT_VK_CMD_CAT_PRESENTS */
    RT_VK_EVENT_ACQUIRE,         /* RT_VK_CMD_CAT_ACQUIRES */
    RT_VK_EVENT_MAP,             /* maps device memory */
    RT_VK_EVENT_WAIT,            /* blocks until fences, semaphores or a queue or device are done */
    RT_VK_EVENT_COUNT
};

/* What trim does with a call before frame A (gen/command_flags.py, "trim"):
 * one role per command, so trim/ compares no command name either. */
enum rt_vk_trim_role {
    RT_VK_TRIM_ROLE_OTHER,                  /* kept when every object it names is */
    RT_VK_TRIM_ROLE_SNAPSHOT_HOLDS,         /* its effect is in the snapshot's read-backs, or it has none to keep */
    RT_VK_TRIM_ROLE_RESETS_COMMAND_BUFFER,  /* ends the command buffer's recording */
    RT_VK_TRIM_ROLE_RESETS_COMMAND_POOL,    /* ends its command buffers' recordings */
    RT_VK_TRIM_ROLE_RESETS_DESCRIPTOR_POOL, /* frees every set of the pool */
    RT_VK_TRIM_ROLE_UNMAPS,                 /* ends a mapping */
    RT_VK_TRIM_ROLE_RECORDS,                /* part of a command buffer's recording (vkCmd*, begin, end) */
    RT_VK_TRIM_ROLE_KEEPS_QUERY,            /* a query whose answer replay follows */
    RT_VK_TRIM_ROLE_BINDS_MEMORY,           /* binds buffers or images to memory */
    RT_VK_TRIM_ROLE_MAPS_MEMORY,            /* maps a VkDeviceMemory */
    RT_VK_TRIM_ROLE_UPDATES_DESCRIPTORS,    /* writes descriptor sets */
};

/* The argument block trim and the importer's snapshot read (the command named,
 * or an alias of it). */
enum rt_vk_trim_args {
    RT_VK_TRIM_ARGS_NONE,
    RT_VK_TRIM_ARGS_SUBMIT,                   /* vkQueueSubmit */
    RT_VK_TRIM_ARGS_SUBMIT2,                  /* vkQueueSubmit2 */
    RT_VK_TRIM_ARGS_ACQUIRE,                  /* vkAcquireNextImageKHR */
    RT_VK_TRIM_ARGS_ACQUIRE_INFO,             /* vkAcquireNextImage2KHR */
    RT_VK_TRIM_ARGS_PRESENT,                  /* vkQueuePresentKHR */
    RT_VK_TRIM_ARGS_BEGIN,                    /* vkBeginCommandBuffer */
    RT_VK_TRIM_ARGS_IMAGE_INFO,               /* vkCreateImage */
    RT_VK_TRIM_ARGS_SWAPCHAIN_IMAGES,         /* vkGetSwapchainImagesKHR */
    RT_VK_TRIM_ARGS_SWAPCHAIN_INFO,           /* vkCreateSwapchainKHR */
    RT_VK_TRIM_ARGS_VIEW_INFO,                /* vkCreateImageView */
    RT_VK_TRIM_ARGS_RENDER_PASS_INFO,         /* vkCreateRenderPass */
    RT_VK_TRIM_ARGS_RENDER_PASS2_INFO,        /* vkCreateRenderPass2 */
    RT_VK_TRIM_ARGS_FRAMEBUFFER_INFO,         /* vkCreateFramebuffer */
    RT_VK_TRIM_ARGS_BUFFER_INFO,              /* vkCreateBuffer */
    RT_VK_TRIM_ARGS_SEMAPHORE_INFO,           /* vkCreateSemaphore */
    RT_VK_TRIM_ARGS_ALLOCATE_COMMAND_BUFFERS, /* vkAllocateCommandBuffers */
    RT_VK_TRIM_ARGS_BARRIER,                  /* vkCmdPipelineBarrier */
    RT_VK_TRIM_ARGS_WAIT_EVENTS,              /* vkCmdWaitEvents */
    RT_VK_TRIM_ARGS_DEPENDENCY,               /* vkCmdPipelineBarrier2 */
    RT_VK_TRIM_ARGS_DEPENDENCIES,             /* vkCmdWaitEvents2 */
    RT_VK_TRIM_ARGS_RENDER_PASS_BEGIN,        /* vkCmdBeginRenderPass */
    RT_VK_TRIM_ARGS_RENDER_PASS_BEGIN2,       /* vkCmdBeginRenderPass2 */
    RT_VK_TRIM_ARGS_EXECUTE_COMMANDS,         /* vkCmdExecuteCommands */
    RT_VK_TRIM_ARGS_QUERY_POOL_INFO,          /* vkCreateQueryPool */
    RT_VK_TRIM_ARGS_MEMORY_INFO,              /* vkAllocateMemory */
    RT_VK_TRIM_ARGS_BIND_IMAGE,               /* vkBindImageMemory */
    RT_VK_TRIM_ARGS_BIND_IMAGE_INFOS,         /* vkBindImageMemory2 */
    RT_VK_TRIM_ARGS_SUBRESOURCE_LAYOUT,       /* vkGetImageSubresourceLayout */
    RT_VK_TRIM_ARGS_MAP,                      /* vkMapMemory */
};

/* A recorded copy or blit that reads with the transfer stage: what it writes. */
enum rt_vk_transfer_dst { RT_VK_TRANSFER_NONE, RT_VK_TRANSFER_BUFFER, RT_VK_TRANSFER_IMAGE };

struct rt_vk_command_desc {
    const char *name;
    const struct rt_vk_struct_desc *args; /* shared by aliases */
    const char *guard;
    const char *excluded; /* why the codec refuses it, or NULL */
    int32_t alias_of;     /* enum rt_vk_cmd of the canonical command, or -1 */
    uint8_t level;        /* enum rt_vk_level */
    uint16_t flags;       /* enum rt_vk_cmd_flag bits */
    int8_t destroyed_arg; /* DESTROYS: argument-block member holding the handle(s), else -1 */
    uint8_t categories;   /* enum rt_vk_cmd_category bits */
    int8_t pipeline_cache_arg; /* CREATES_PIPELINE: argument-block member of its VkPipelineCache, else -1 */
    int8_t event;         /* enum rt_vk_cmd_event, or -1 */
    uint8_t transfer_dst; /* enum rt_vk_transfer_dst */
    int32_t object_type;  /* VkObjectType it creates (CREATES) or destroys (DESTROYS), else 0 */
    uint8_t trim_role;    /* enum rt_vk_trim_role */
    uint8_t trim_args;    /* enum rt_vk_trim_args */
};

#endif
