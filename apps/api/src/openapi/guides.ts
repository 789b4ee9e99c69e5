// placeholder until the guides land
export function referenceGuides(): {
  description: string;
  tags: Array<{ name: string; description: string }>;
} {
  return { description: 'The Boxoffice public API v1.', tags: [] };
}
export function codeSamples(_key: string): Array<{ lang: string; label: string; source: string }> {
  return [];
}
