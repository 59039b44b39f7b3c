/*
 * The differences between the FFmpeg releases the -ext sources build on
 * (7.1 and 9.0), in one place.
 *
 * This file is part of FFmpeg.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * FFmpeg is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with FFmpeg; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

#ifndef AVUTIL_LCV_COMPAT_H
#define AVUTIL_LCV_COMPAT_H

#include "libavutil/version.h"

/* FFmpeg 8.0 and later (libavutil 60+); 7.1 is libavutil 59 */
#define LCV_FFMPEG_8 (LIBAVUTIL_VERSION_MAJOR >= 60)

/*
 * libavfilter: since 8.0 a filter is an FFFilter whose public part, the
 * AVFilter, is its member p; before, the AVFilter held everything.
 *   const FF_FILTER ff_vf_x = { FF_FILTER_PUB(name) = "x", .priv_size = ... };
 */
#if LCV_FFMPEG_8
#define FF_FILTER          FFFilter
#define FF_FILTER_PUB(f)   .p.f
#else
#define FF_FILTER          AVFilter
#define FF_FILTER_PUB(f)   .f
#endif

#endif /* AVUTIL_LCV_COMPAT_H */
