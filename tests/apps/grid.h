/*
 * tests/apps/grid.h — what the replay-configuration samples (oob, race,
 * uninit) share: a pipeline that shows a storage buffer as a grid of
 * GRID_COLS x GRID_ROWS coloured cells (one packed RGBA value each), drawn
 * with one triangle and no vertex buffer (shaders/grid.vert, grid.frag).
 */
#ifndef RT_APP_GRID_H
#define RT_APP_GRID_H

#include "app.h"

#define GRID_COLS 16
#define GRID_ROWS 8
#define GRID_CELLS (GRID_COLS * GRID_ROWS)

struct grid {
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline pipeline;
};

/** The grid pipeline for PASS, showing CELLS (GRID_CELLS uints). */
RT_MUST_CHECK rt_status grid_setup(struct rt_app *app, struct grid *g, VkRenderPass pass, VkBuffer cells);
/** Draws the grid inside a begun render pass of EXTENT. */
void grid_draw(struct grid *g, VkCommandBuffer cmd, VkExtent2D extent);
void grid_teardown(struct rt_app *app, struct grid *g);
/** Cell I's colour in a picture that differs per cell and frame (opaque). */
uint32_t grid_color(uint32_t i, uint32_t frame);

#endif
