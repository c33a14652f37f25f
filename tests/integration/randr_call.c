/*
 * tests/integration/randr_call.c — calls vkGetRandROutputDisplayEXT
 * (VK_EXT_acquire_xlib_display) once, on the X display of $DISPLAY, output 0.
 * A build without X11/extensions/Xrandr.h has no recorder for that command:
 * the capture layer passes it through, and the test (unrecorded.sh) checks
 * that it says so. The function type is declared here for the same reason.
 */
#include <stdio.h>
#include <X11/Xlib.h>
#include <vulkan/vulkan.h>

typedef VkResult(VKAPI_PTR *get_randr_output_display)(VkPhysicalDevice, Display *, unsigned long, VkDisplayKHR *);

int main(void)
{
    Display *dpy = XOpenDisplay(NULL);
    const char *extensions[] = {"VK_KHR_display", "VK_EXT_direct_mode_display", "VK_EXT_acquire_xlib_display"};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "randr_call",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
                                .enabledExtensionCount = 3, .ppEnabledExtensionNames = extensions};
    VkInstance instance;
    if (!dpy || vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS) {
        fprintf(stderr, "randr_call: no X display or no instance with VK_EXT_acquire_xlib_display\n");
        return 1;
    }
    uint32_t n = 1;
    VkPhysicalDevice gpu;
    get_randr_output_display get =
        (get_randr_output_display)vkGetInstanceProcAddr(instance, "vkGetRandROutputDisplayEXT");
    if (vkEnumeratePhysicalDevices(instance, &n, &gpu) < 0 || n == 0 || !get) {
        fprintf(stderr, "randr_call: no device or no vkGetRandROutputDisplayEXT\n");
        return 1;
    }
    VkDisplayKHR display = VK_NULL_HANDLE;
    VkResult result = get(gpu, dpy, 0, &display);
    printf("vkGetRandROutputDisplayEXT: %d, display %s\n", (int)result, display ? "given" : "none");
    vkDestroyInstance(instance, NULL);
    XCloseDisplay(dpy);
    return 0;
}
