// Which boxes a view loads, coarse to fine (design.md §6): the planner's box and level for the
// camera, or the manual level override; capped so that one view never asks for more than its
// sample budget; and a first, coarser request a few levels down that arrives quickly. Pure: the
// page (app.js) calls it on every camera change and once the camera rests.
import { planView } from './planner.js';

/**
 * geometry: Geometry; camera: {mvp, width, height} (device pixels); options: {level: 'auto' | H,
 * quality, budget (samples), coarseSteps (levels), params: {dataset, field, time}}.
 * Returns {plan, final, coarse}: final and coarse are request params ({..params, level, box}) or
 * null when the view sees nothing; coarse equals final when there is nothing coarser to show.
 */
export function planRequests(geometry, camera, { level = 'auto', quality = 0, budget, coarseSteps, params }) {
  const plan = planView(geometry.plannerDataset(), { mvp: camera.mvp, width: camera.width, height: camera.height, qualityBias: quality });
  if (!plan.visible) return { plan, final: null, coarse: null };
  let finalLevel = level === 'auto' ? plan.level : Math.max(0, Math.min(level, geometry.maxh));
  while (finalLevel > 0 && geometry.samplesAt(geometry.alignToLevel(plan.box, finalLevel), finalLevel) > budget) --finalLevel;
  const make = (l) => ({ ...params, level: l, box: geometry.alignToLevel(plan.box, l) });
  return { plan, final: make(finalLevel), coarse: make(Math.max(0, finalLevel - coarseSteps)) };
}
