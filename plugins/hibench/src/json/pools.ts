/**
 * Name pools of the procedural university documents (specs/hibench.md §3.3, §7 rec. 13 and 17). Written for this
 * project (not taken from the toolkit's files). Constraints the generator relies on (checked by the tests): no
 * string contains a comma (level-node lists are split on ","), an apostrophe, a double quote, an arrow or " and "
 * (which would make "the common ancestor of X and Y" ambiguous), and every
 * faculty, subject, topic, university and person-name entry is unique across the pools.
 *
 * Capacity: 10 faculties with 7 department subjects each (large-2 needs up to 6 faculties of up to 6 departments),
 * 7 degree types x 3 topics (the subject and two specialisations) per department for program names (up to 6 programs
 * per department), 8 course-name templates x 3 topics per department, 80 x 80 person names.
 */

/** One department subject with two specialisations ("Physics" -> "Particle Physics", ...). */
export interface SubjectPool {
  subject: string;
  specializations: readonly string[];
}

/** A faculty: its name, the degree types of its programs and its department subjects. */
export interface FacultyPool {
  faculty: string;
  degrees: readonly string[];
  subjects: readonly SubjectPool[];
}

const s = (subject: string, ...specializations: string[]): SubjectPool => ({ subject, specializations });

/** The faculty pools (§3.3 normal semantics: "Faculty of Engineering", "Department of Particle Physics", ...). */
export const FACULTY_POOLS: readonly FacultyPool[] = [
  {
    faculty: 'Faculty of Science',
    degrees: ['Bachelor of Science', 'Master of Science', 'Doctor of Philosophy', 'Master of Research', 'Master of Philosophy', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('Physics', 'Particle Physics', 'Condensed Matter Physics'),
      s('Chemistry', 'Organic Chemistry', 'Analytical Chemistry'),
      s('Mathematics', 'Pure Mathematics', 'Applied Mathematics'),
      s('Biology', 'Molecular Biology', 'Marine Biology'),
      s('Earth Sciences', 'Geology', 'Volcanology'),
      s('Statistics', 'Biostatistics', 'Actuarial Science'),
      s('Astronomy', 'Cosmology', 'Planetary Science'),
    ],
  },
  {
    faculty: 'Faculty of Engineering',
    degrees: ['Bachelor of Engineering', 'Master of Engineering', 'Master of Applied Science', 'Doctor of Philosophy', 'Doctor of Engineering', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('Mechanical Engineering', 'Thermofluids', 'Robotics'),
      s('Electrical Engineering', 'Power Systems', 'Signal Processing'),
      s('Civil Engineering', 'Structural Engineering', 'Transportation Engineering'),
      s('Chemical Engineering', 'Process Engineering', 'Energy Engineering'),
      s('Aerospace Engineering', 'Aerodynamics', 'Space Systems'),
      s('Materials Engineering', 'Nanomaterials', 'Metallurgy'),
      s('Biomedical Engineering', 'Medical Imaging', 'Biomechanics'),
    ],
  },
  {
    faculty: 'Faculty of Arts',
    degrees: ['Bachelor of Arts', 'Master of Arts', 'Doctor of Philosophy', 'Master of Philosophy', 'Master of Research', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('History', 'Medieval History', 'Economic History'),
      s('Philosophy', 'Ethics', 'Philosophy of Mind'),
      s('English Literature', 'Victorian Literature', 'Creative Writing'),
      s('Linguistics', 'Phonetics', 'Sociolinguistics'),
      s('Music', 'Musicology', 'Composition'),
      s('Classics', 'Ancient Greek', 'Classical Archaeology'),
      s('Fine Art', 'Painting', 'Art History'),
    ],
  },
  {
    faculty: 'Faculty of Social Sciences',
    degrees: ['Bachelor of Social Science', 'Bachelor of Arts', 'Master of Arts', 'Master of Science', 'Doctor of Philosophy', 'Master of Research', 'Graduate Diploma'],
    subjects: [
      s('Economics', 'Econometrics', 'Development Economics'),
      s('Sociology', 'Urban Sociology', 'Criminology'),
      s('Political Science', 'Comparative Politics', 'Public Policy'),
      s('Psychology', 'Cognitive Psychology', 'Clinical Psychology'),
      s('Anthropology', 'Social Anthropology', 'Archaeology'),
      s('Human Geography', 'Urban Geography', 'Population Studies'),
      s('International Relations', 'Security Studies', 'Diplomacy'),
    ],
  },
  {
    faculty: 'Faculty of Medicine',
    degrees: ['Bachelor of Medical Science', 'Master of Science', 'Doctor of Philosophy', 'Doctor of Medicine', 'Master of Research', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('Anatomy', 'Human Anatomy', 'Neuroanatomy'),
      s('Pharmacology', 'Clinical Pharmacology', 'Toxicology'),
      s('Public Health', 'Epidemiology', 'Global Health'),
      s('Nursing', 'Adult Nursing', 'Paediatric Nursing'),
      s('Neuroscience', 'Cognitive Neuroscience', 'Neuroimaging'),
      s('Immunology', 'Infectious Diseases', 'Vaccinology'),
      s('Physiology', 'Cardiovascular Physiology', 'Exercise Physiology'),
    ],
  },
  {
    faculty: 'Faculty of Business',
    degrees: ['Bachelor of Business Administration', 'Bachelor of Commerce', 'Master of Business Administration', 'Master of Science', 'Doctor of Philosophy', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('Accounting', 'Financial Accounting', 'Auditing'),
      s('Finance', 'Corporate Finance', 'Investment Management'),
      s('Marketing', 'Digital Marketing', 'Consumer Behaviour'),
      s('Management', 'Strategic Management', 'Human Resource Management'),
      s('Business Analytics', 'Decision Science', 'Operations Research'),
      s('Supply Chain Management', 'Logistics', 'Procurement'),
      s('Entrepreneurship', 'Innovation Management', 'Social Enterprise'),
    ],
  },
  {
    faculty: 'Faculty of Law',
    degrees: ['Bachelor of Laws', 'Master of Laws', 'Juris Doctor', 'Doctor of Philosophy', 'Master of Research', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('Criminal Law', 'Criminal Justice', 'Evidence Law'),
      s('Commercial Law', 'Company Law', 'Contract Law'),
      s('International Law', 'International Trade Law', 'Law of the Sea'),
      s('Constitutional Law', 'Administrative Law', 'Judicial Review'),
      s('Human Rights Law', 'Refugee Law', 'Humanitarian Law'),
      s('Environmental Law', 'Climate Law', 'Energy Law'),
      s('Intellectual Property Law', 'Patent Law', 'Copyright Law'),
    ],
  },
  {
    faculty: 'Faculty of Computing',
    degrees: ['Bachelor of Computing', 'Master of Computing', 'Bachelor of Science', 'Master of Science', 'Doctor of Philosophy', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('Computer Science', 'Distributed Systems', 'Computer Graphics'),
      s('Software Engineering', 'Software Architecture', 'Software Testing'),
      s('Data Science', 'Machine Learning', 'Data Visualisation'),
      s('Artificial Intelligence', 'Natural Language Processing', 'Computer Vision'),
      s('Cybersecurity', 'Cryptography', 'Digital Forensics'),
      s('Information Systems', 'Database Systems', 'Health Informatics'),
      s('Human Computer Interaction', 'Interaction Design', 'Ubiquitous Computing'),
    ],
  },
  {
    faculty: 'Faculty of Education',
    degrees: ['Bachelor of Education', 'Master of Education', 'Master of Teaching', 'Doctor of Education', 'Doctor of Philosophy', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('Early Childhood Education', 'Play Pedagogy', 'Early Literacy'),
      s('Primary Education', 'Primary Mathematics', 'Primary Science'),
      s('Secondary Education', 'Science Education', 'Language Education'),
      s('Special Education', 'Inclusive Education', 'Learning Disabilities'),
      s('Educational Leadership', 'School Leadership', 'Curriculum Studies'),
      s('Adult Education', 'Lifelong Learning', 'Vocational Education'),
      s('Educational Technology', 'Online Learning', 'Instructional Design'),
    ],
  },
  {
    faculty: 'Faculty of Architecture',
    degrees: ['Bachelor of Architecture', 'Master of Architecture', 'Bachelor of Design', 'Master of Design', 'Doctor of Philosophy', 'Graduate Diploma', 'Postgraduate Certificate'],
    subjects: [
      s('Architecture', 'Sustainable Architecture', 'Architectural History'),
      s('Urban Planning', 'Urban Design', 'Regional Planning'),
      s('Landscape Architecture', 'Landscape Ecology', 'Garden Design'),
      s('Industrial Design', 'Product Design', 'Furniture Design'),
      s('Interior Design', 'Spatial Design', 'Lighting Design'),
      s('Graphic Design', 'Typography', 'Visual Communication'),
      s('Fashion Design', 'Textile Design', 'Costume Design'),
    ],
  },
];

/** Course-name templates; `{t}` is one of the department's topics (its subject or a specialisation). */
export const COURSE_TEMPLATES: readonly string[] = [
  'Introduction to {t}',
  'Advanced {t}',
  'Foundations of {t}',
  'Topics in {t}',
  'Research Methods in {t}',
  'Seminar in {t}',
  'Principles of {t}',
  'Contemporary Issues in {t}',
];

/** University names (§3.3: "Horizon University", "City University", ...). */
export const UNIVERSITY_NAMES: readonly string[] = [
  'Horizon University', 'City University', 'Northbridge University', 'Riverside University', 'Westfield University',
  'Eastbrook University', 'Lakeside University', 'Highland University', 'Greenwood University', 'Silverton University',
  'Kingsford University', 'Ashford University', 'Meridian University', 'Summit University', 'Crescent University',
  'Redwood University', 'Oakridge University', 'Bayview University', 'Stonebridge University', 'Clearwater University',
  'Harborview University', 'Pinecrest University', 'Fairhaven University', 'Brookfield University',
];

/** Lecturer titles (§3.3). */
export const TITLES: readonly string[] = ['Professor', 'Associate Professor', 'Senior Lecturer', 'Lecturer'];

/** Given names (80). */
export const FIRST_NAMES: readonly string[] = [
  'Aria', 'Elijah', 'Iris', 'Mila', 'Jordan', 'Elena', 'Sebastian', 'Noah', 'Olivia', 'Liam',
  'Emma', 'Lucas', 'Sofia', 'Mateo', 'Amelia', 'Ethan', 'Chloe', 'Daniel', 'Grace', 'Henry',
  'Hannah', 'Isaac', 'Julia', 'Kai', 'Leah', 'Marcus', 'Nora', 'Oscar', 'Priya', 'Quentin',
  'Rosa', 'Samuel', 'Tara', 'Victor', 'Wendy', 'Xavier', 'Yara', 'Zane', 'Adele', 'Bruno',
  'Clara', 'Dmitri', 'Esther', 'Felix', 'Gemma', 'Hugo', 'Ingrid', 'Jonas', 'Keira', 'Leon',
  'Maya', 'Nikhil', 'Ophelia', 'Pablo', 'Ruth', 'Stefan', 'Thea', 'Umar', 'Vera', 'Wei',
  'Yusuf', 'Zara', 'Alice', 'Benjamin', 'Camila', 'David', 'Eva', 'Farah', 'Gabriel', 'Helena',
  'Ivan', 'Jasmine', 'Kenji', 'Lucia', 'Miguel', 'Naomi', 'Omar', 'Paula', 'Rafael', 'Selin',
];

/** Family names (80). */
export const LAST_NAMES: readonly string[] = [
  'Beck', 'Brown', 'Ortiz', 'Reyes', 'Baker', 'Carter', 'Rivera', 'Nguyen', 'Patel', 'Schmidt',
  'Kowalski', 'Tanaka', 'Silva', 'Haddad', 'Novak', 'Larsen', 'Moreau', 'Rossi', 'Fischer', 'Costa',
  'Murphy', 'Walsh', 'Kim', 'Chen', 'Singh', 'Okafor', 'Mensah', 'Ibrahim', 'Petrov', 'Ivanova',
  'Jensen', 'Lindqvist', 'Alvarez', 'Romero', 'Herrera', 'Castillo', 'Dubois', 'Lambert', 'Weber', 'Hoffmann',
  'Yamamoto', 'Sato', 'Park', 'Choi', 'Gupta', 'Sharma', 'Khan', 'Rahman', 'Adeyemi', 'Banda',
  'Horvat', 'Kovacs', 'Nowak', 'Dvorak', 'Popescu', 'Georgiou', 'Papadopoulos', 'Yilmaz', 'Demir', 'Cohen',
  'Levi', 'Morgan', 'Hughes', 'Foster', 'Bennett', 'Griffin', 'Hayes', 'Sullivan', 'Fleming', 'Barrett',
  'Sutherland', 'Whitaker', 'Holloway', 'Pearson', 'Lowe', 'Marsh', 'Quinn', 'Fraser', 'Duncan', 'Ellis',
];
