/*
 * tests/integration/probe_child.c PROGRAM [ARGS...] — what a game engine
 * does before it renders (godot3 forks GL probes): a child process creates
 * a Vulkan instance, looks at the devices and exits; then this process
 * becomes PROGRAM (exec: the same process). Under `retrace capture -o T`, T
 * must be PROGRAM's trace, not the probe's. Exits as PROGRAM does; 77 when
 * the probe finds no Vulkan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

static int probe(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "probe",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance;
    if (vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS)
        return 77;
    uint32_t count = 0;
    VkResult r = vkEnumeratePhysicalDevices(instance, &count, NULL);
    vkDestroyInstance(instance, NULL);
    return r == VK_SUCCESS && count ? 0 : 77;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: probe_child PROGRAM [ARGS...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid == 0)
        exit(probe()); /* exit, not _exit: the layer finishes its trace at exit */
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
        return pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 1;
}
