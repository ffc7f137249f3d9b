import { memo } from 'react';
import { BaseEdge, EdgeLabelRenderer, type EdgeProps } from '@xyflow/react';
import { roundedPath, type RoutedEdge } from '../elk-layout';

export interface RoutedEdgeData extends Record<string, unknown> {
  route: RoutedEdge;
  text?: string;
}

/** An edge along the route ELK computed (around the nodes), its label where ELK placed it, beside the line. */
export const RoutedEdgeView = memo(function RoutedEdgeView({ id, data, style, markerEnd }: EdgeProps) {
  const d = data as RoutedEdgeData;
  const path = roundedPath(d.route.points);
  const l = d.route.label;
  return (
    <>
      <BaseEdge id={id} path={path} style={style} markerEnd={markerEnd} />
      {l && d.text ? (
        <EdgeLabelRenderer>
          <div className="edge-label" title={d.text} style={{ transform: `translate(${l.x}px, ${l.y}px)`, width: l.width, height: l.height }}>
            {d.text}
          </div>
        </EdgeLabelRenderer>
      ) : null}
    </>
  );
});
