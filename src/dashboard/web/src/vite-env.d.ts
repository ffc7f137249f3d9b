/** Vite's `?url` imports: the URL of the asset as built (the ELK worker script). */
declare module '*?url' {
  const url: string;
  export default url;
}
