/*
 * render.h - board pictures: SVG, PNG and animated GIF of a position.
 *
 * One scene model, three outputs. render_scene() turns a request (position,
 * options, overlay) into a list of drawing primitives in pixels:
 * rectangles, polylines, circles and text. Text is drawn with a small
 * built-in stroke font (digits, lowercase letters, '%'), so that no font
 * has to be installed and every back end draws the same strokes. The SVG
 * back end writes the primitives as SVG elements (text as stroked paths);
 * the PNG back end draws them with cairo; the GIF back end draws one scene
 * per move with cairo and quantises each frame to a fixed palette (the
 * theme's colours plus a 6x6x6 colour cube for anti-aliased edges), coded
 * with giflib. Everything is deterministic: the same request gives the same
 * bytes.
 *
 * Lives in server/ (not api/ or engine/) because it links cairo and giflib,
 * which the pbrain front end and the fuzz harnesses do not need. It reads
 * the position through engine/ (board, rules: renju forbidden points).
 */
#ifndef GOMOKUD_RENDER_H
#define GOMOKUD_RENDER_H

#include <stddef.h>

#include "api/render_request.h"

typedef struct {
    unsigned char *data; /* malloc'd, caller frees */
    size_t len;
    int width, height; /* pixels (the SVG's viewBox) */
    int frames;        /* 1, or the frames of an animation */
} RenderOutput;

/* Draws r in its format. False only when memory (or cairo/giflib) fails;
 * the request was validated by the parser. */
bool render_image(const ApiRender *r, RenderOutput *out);

#endif
