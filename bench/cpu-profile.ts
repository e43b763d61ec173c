/** Reading V8 CPU profiles (`node --cpu-prof`): what bench/profile.ts and bench/profile-diff.ts share. */
import { readFileSync } from 'node:fs';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  timeDeltas: number[];
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** Each sample's time on the profile's clock (CLOCK_MONOTONIC, µs). */
export function sampleTimes(profile: CpuProfile): number[] {
  let t = profile.startTime;
  return profile.timeDeltas.map((d) => {
    t += d;
    return t;
  });
}

/** A function as `name file:line`, its file relative to the working directory. */
export function frameLabel(node: ProfileNode): string {
  const url = node.callFrame.url.replace(/^file:\/\//, '').replace(process.cwd(), '.');
  return `${node.callFrame.functionName || '(anonymous)'} ${url}:${node.callFrame.lineNumber + 1}`;
}
