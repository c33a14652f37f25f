/* Reproduction (docs/FIELD_TEST.md, finding 2): a layer above the capture
 * layer that follows the Khronos sample layer's vkCreateDevice, as vkBasalt
 * does, calls a NULL function and the program dies with SIGSEGV.
 *
 * Those layers fetch the next layer's vkCreateDevice with
 * `pfnNextGetInstanceProcAddr(NULL, "vkCreateDevice")` (Vulkan-Loader's
 * LoaderLayerInterface sample, vktrace, GFXReconstruct, vkBasalt). The
 * loader's terminator (what the last layer calls) and the Khronos validation
 * layer answer that; the capture layer answers only global commands for a
 * NULL instance (capture/layer.c, is_global), so the caller gets NULL.
 *
 *   cc -o gipa_null tests/repro/gipa_null_create_device.c -ldl
 *   ./gipa_null build/capture/libVkLayer_RETRACE_capture.so \
 *       /usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so
 *   -> capture: NULL; validation: a function; exit 1
 *
 * The real program: apt-get install vkbasalt; printf 'effects = cas\n' > c;
 *   VKBASALT_CONFIG_FILE=$PWD/c ENABLE_VKBASALT=1 retrace capture -- vkcube
 *   -> "vkcube was killed by signal 11", 29 calls, 0 frames (works without
 *   retrace). Exit 0 when every library named answers, 1 when one gives
 *   NULL, 2 when one cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <vulkan/vulkan.h>

typedef PFN_vkVoidFunction (*gipa_fn)(VkInstance, const char *);

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        void *lib = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        gipa_fn gipa = lib ? (gipa_fn)dlsym(lib, "vkGetInstanceProcAddr") : NULL;
        if (!gipa)
            gipa = lib ? (gipa_fn)dlsym(lib, "vk_icdGetInstanceProcAddr") : NULL;
        if (!gipa) {
            printf("%s: cannot load: %s\n", argv[i], dlerror());
            rc = 2;
            continue;
        }
        PFN_vkVoidFunction f = gipa(VK_NULL_HANDLE, "vkCreateDevice");
        printf("%s: vkGetInstanceProcAddr(NULL, \"vkCreateDevice\") = %s\n", argv[i], f ? "a function" : "NULL");
        if (!f && rc == 0)
            rc = 1;
    }
    return rc;
}
